import { Controller, Get, Header, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { dump } from 'js-yaml';
import { Public } from '../auth/public.decorator';
import { ApiError } from '../http/api-error';
import { OpenApiDocumentHolder } from './openapi-document.holder';

/** `GET /api/schema` (JSON, or YAML with `?format=yaml`). */
@ApiExcludeController()
@Public()
@Controller('schema')
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Get()
  @Header('Cache-Control', 'no-cache')
  schema(@Res() res: Response, @Query('format') format?: string): void {
    const document = this.holder.get();
    if (format === undefined || format === 'json') {
      res.type('application/json').send(JSON.stringify(document));
      return;
    }
    if (format === 'yaml' || format === 'yml') {
      res.type('application/yaml').send(dump(document, { noRefs: true, lineWidth: -1 }));
      return;
    }
    throw ApiError.invalidField('format', 'must be json or yaml');
  }
}
