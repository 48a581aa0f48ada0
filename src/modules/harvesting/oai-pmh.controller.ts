import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../core/auth/public.decorator';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { AnonymousReadLimit } from '../../core/http/anonymous-read-limit.guard';
import { OAI_PATH } from '../../core/http/configure-http-app';
import { AcceptsContentTypes } from '../../core/http/content-type.guard';
import { publicBaseUrl } from '../../core/http/public-address';
import { OaiPmhService } from './oai-pmh.service';
import { OAI_FORMATS, OAI_VERBS } from './oai-pmh.request';

const DESCRIPTION =
  'OAI-PMH 2.0 (https://www.openarchives.org/OAI/openarchivesprotocol.html) over the public samples. Verbs: ' +
  `${OAI_VERBS.join(', ')}. Metadata formats: ${Object.keys(OAI_FORMATS).join(', ')} (DataCite 4.6 XML). ` +
  'Identifiers are `doi:` + the DOI (`doi:10.5072/IEABC0001`); sets are registry codes; datestamps are the ' +
  "record's last change (seconds, UTC). Deactivated samples that were public are deleted records " +
  '(deletedRecord persistent). Lists come in pages of OAI_PAGE_SIZE with resumption tokens that never expire. ' +
  'Protocol errors are answered 200 with an `<error code="…">` element, as the protocol requires.';

const XML_ANSWER = {
  description: 'An OAI-PMH response document (`text/xml`), errors included.',
  content: {
    'text/xml': {
      schema: { type: 'string' as const },
      example:
        '<?xml version="1.0" encoding="UTF-8"?>\n<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">\n' +
        '  <responseDate>2026-01-01T00:00:00Z</responseDate>\n' +
        '  <request verb="Identify">https://registry.example.org/oai</request>\n  <Identify>…</Identify>\n</OAI-PMH>\n',
    },
  },
};

const ARGUMENTS = ['verb', 'identifier', 'metadataPrefix', 'from', 'until', 'set', 'resumptionToken'];

/**
 * `/oai`, outside /api/ (harvesters are configured with a base URL, not an API prefix): GET with a
 * query string or POST with a form body, as the protocol allows both. Anonymous.
 */
@ApiTags('harvesting')
@Public()
@Controller(OAI_PATH)
export class OaiPmhController {
  constructor(
    private readonly oaiPmhService: OaiPmhService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  @Get()
  @AnonymousReadLimit()
  @ApiOperation({ summary: 'OAI-PMH 2.0 repository of the public samples.', description: DESCRIPTION })
  @ApiQuery({ name: 'verb', required: true, enum: OAI_VERBS })
  @ApiQuery({ name: 'identifier', required: false, type: String, example: 'doi:10.5072/IEABC0001' })
  @ApiQuery({ name: 'metadataPrefix', required: false, enum: Object.keys(OAI_FORMATS) })
  @ApiQuery({ name: 'from', required: false, type: String, example: '2026-01-01' })
  @ApiQuery({ name: 'until', required: false, type: String, example: '2026-01-31T23:59:59Z' })
  @ApiQuery({ name: 'set', required: false, type: String, example: 'IEABC' })
  @ApiQuery({ name: 'resumptionToken', required: false, type: String })
  @ApiOkResponse(XML_ANSWER)
  async get(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(query, req, res);
  }

  @Post()
  @HttpCode(200)
  @AnonymousReadLimit()
  @AcceptsContentTypes('application/x-www-form-urlencoded')
  @ApiOperation({ summary: 'OAI-PMH 2.0, the arguments as a form body.', description: DESCRIPTION })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['verb'],
      properties: Object.fromEntries(ARGUMENTS.map((name) => [name, { type: 'string' }])),
    },
  })
  @ApiOkResponse(XML_ANSWER)
  async post(@Body() body: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(body ?? {}, req, res);
  }

  private async answer(args: Record<string, unknown>, req: Request, res: Response): Promise<void> {
    const xml = await this.oaiPmhService.respond(args, publicBaseUrl(this.config.publicUrl, req));
    res.status(200).type('text/xml; charset=utf-8').setHeader('Cache-Control', 'no-store');
    res.send(xml);
  }
}
