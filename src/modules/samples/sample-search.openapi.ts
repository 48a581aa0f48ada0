import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { SAMPLE_FILTER_DOCS } from './sample-search';

/** The filters of SAMPLE_FILTER_DOCS as optional string query parameters. */
export const ApiSampleFilterQueries = (): MethodDecorator =>
  applyDecorators(
    ...Object.entries(SAMPLE_FILTER_DOCS).map(([name, doc]) =>
      ApiQuery({
        name,
        required: false,
        description: doc.description,
        schema: { type: 'string', example: doc.example, maxLength: doc.maxLength },
      }),
    ),
  );
