import { Controller, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { rawBodyFailure } from '../../core/http/body-parsers';
import { AcceptsContentTypes } from '../../core/http/content-type.guard';
import { legacyXmlFromField, legacyXmlFromRequestBody } from './legacy-xml.body';
import { parseMultipart } from './legacy-xml.multipart';
import { LegacyXmlExceptionFilter, sendLegacyXml } from './legacy-xml.exception-filter';
import { LegacyXmlEndpoint } from './legacy-xml.openapi';
import { legacyResultsDocument } from './legacy-xml.responses';
import { LegacyXmlOperation, LegacyXmlService } from './legacy-xml.service';

/**
 * The deprecated v1 XML endpoints. `/webservices/*.php` live outside the /api prefix
 * (configure-http-app.ts) and, like `/api/samples/legacy-xml/`, get their body as raw bytes
 * (body-parsers.ts), multipart included, within XML_BODY_LIMIT: the `content` field is found here.
 * The media type is not checked by the global guard: the body reader knows every form old clients
 * use (including none and `+xml`) and answers anything else with an InvalidXML 415.
 */
@ApiTags('legacy-xml')
@Controller()
@UseFilters(LegacyXmlExceptionFilter)
@AcceptsContentTypes('*/*')
export class LegacyXmlController {
  constructor(private readonly legacyXmlService: LegacyXmlService) {}

  @Post('webservices/upload.php')
  @LegacyXmlEndpoint('register', 'Register samples from a legacy XML document (old upload.php path).')
  async upload(@Req() req: Request, @Res() res: Response, @CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.answer('register', req, res, user);
  }

  @Post('samples/legacy-xml')
  @LegacyXmlEndpoint('register', 'Register samples from a legacy XML document.')
  async register(@Req() req: Request, @Res() res: Response, @CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.answer('register', req, res, user);
  }

  @Post('webservices/update.php')
  @LegacyXmlEndpoint('update', 'Update samples from a legacy XML document (old update.php path).')
  async update(@Req() req: Request, @Res() res: Response, @CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.answer('update', req, res, user);
  }

  private async answer(
    operation: LegacyXmlOperation,
    req: Request,
    res: Response,
    user: AuthenticatedUser,
  ): Promise<void> {
    // Permission first: nothing of the document is read for a user who may not submit it.
    this.legacyXmlService.assertMaySubmit(user);
    const { outcomes, status } = await this.legacyXmlService.process(await contentOf(req), operation, user);
    sendLegacyXml(res, status, legacyResultsDocument(outcomes));
  }
}

/** The XML document in the request's `content` field, whichever way it was sent. */
async function contentOf(req: Request): Promise<string> {
  const failure = rawBodyFailure(req);
  if (failure !== undefined) throw failure;
  const contentType = req.headers['content-type'];
  const body = Buffer.isBuffer(req.body) ? req.body : undefined;
  if (!/^\s*multipart\//i.test(contentType ?? '')) return legacyXmlFromRequestBody(contentType, body);
  const { fields, files } = await parseMultipart(contentType ?? '', body ?? Buffer.alloc(0));
  const values: unknown[] = [...(fields.get('content') ?? []), ...(files.get('content') ?? [])];
  return legacyXmlFromField(values.length === 1 ? values[0] : values.length === 0 ? undefined : values);
}
