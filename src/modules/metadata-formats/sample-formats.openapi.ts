import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiExtraModels,
  ApiNotAcceptableResponse,
  ApiOkResponse,
  ApiQuery,
  getSchemaPath,
} from '@nestjs/swagger';
import { ErrorBody } from '../../core/http/error-body';
import { SampleResponse } from '../samples';
import { REGISTRY_PUBLISHER } from './metadata-options';
import { minimalSampleDto } from './sample-dto.examples';
import { NOT_ACCEPTABLE_BODY, SAMPLE_FORMATS, SAMPLE_MEDIA_TYPES, renderSample } from './sample-formats';

const FORMAT_LIST = SAMPLE_FORMATS.join(', ');

/** An example of each representation, rendered by the serializers from one example sample. */
function example(format: (typeof SAMPLE_FORMATS)[number]): unknown {
  return renderSample(minimalSampleDto(), format, {
    publisher: REGISTRY_PUBLISHER,
    baseUrl: 'https://registry.example.org',
  }).body;
}

/**
 * The OpenAPI description of a sample's negotiated representations: `?format=`, one 200 content
 * entry per media type, the 400 for an unknown format and the 406 for an Accept nothing satisfies.
 */
export function ApiSampleRepresentations(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'format',
      required: false,
      enum: SAMPLE_FORMATS,
      description: 'The representation, instead of the Accept header (it wins over Accept).',
    }),
    ApiExtraModels(SampleResponse),
    ApiOkResponse({
      description: 'The sample in the negotiated representation. `Vary: Accept`.',
      content: {
        [SAMPLE_MEDIA_TYPES.json]: { schema: { $ref: getSchemaPath(SampleResponse) } },
        [SAMPLE_MEDIA_TYPES.jsonld]: {
          schema: { type: 'object', description: 'schema.org JSON-LD, `@type` CreativeWork, identified by the IGSN' },
          example: example('jsonld'),
        },
        [SAMPLE_MEDIA_TYPES.datacite]: {
          schema: { type: 'string', description: 'DataCite Metadata Schema 4.6, resourceTypeGeneral PhysicalObject' },
          example: example('datacite'),
        },
        [SAMPLE_MEDIA_TYPES.csv]: {
          schema: { type: 'string', description: 'RFC 4180, UTF-8, CRLF: a header row and one row' },
          example: example('csv'),
        },
      },
    }),
    ApiBadRequestResponse({
      type: ErrorBody,
      description: 'Unknown `format`.',
      example: {
        message: `Invalid format: must be one of ${FORMAT_LIST}.`,
        errors: { format: [`must be one of ${FORMAT_LIST}`] },
      },
    }),
    ApiNotAcceptableResponse({
      type: ErrorBody,
      description: 'The Accept header allows none of the available media types.',
      example: NOT_ACCEPTABLE_BODY,
    }),
  );
}
