import { Controller, Post, Req, Res, UseFilters, UseInterceptors } from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { rawBodyFailure } from '../../core/http/body-parsers';
import { AcceptsContentTypes } from '../../core/http/content-type.guard';
import { legacyXmlFromField, legacyXmlFromRequestBody } from './legacy-xml.body';
import { LegacyXmlExceptionFilter, sendLegacyXml } from './legacy-xml.exception-filter';
import { LegacyXmlEndpoint } from './legacy-xml.openapi';
import { legacyResultsDocument } from './legacy-xml.responses';
import { LegacyXmlOperation, LegacyXmlService } from './legacy-xml.service';

/**
 * The deprecated v1 XML endpoints. `/webservices/*.php` live outside the /api prefix
 * (configure-http-app.ts) and, like `/api/samples/legacy-xml/`, get their body as raw bytes
 * (body-parsers.ts) or, for multipart, from multer: the `content` field is found here.
 * The media type is not checked by the global guard: the body reader knows every form old clients
 * use (including none and `+xml`) and answers anything else with an InvalidXML 415.
 */
@ApiTags('legacy-xml')
@Controller()
@UseFilters(LegacyXmlExceptionFilter)
@UseInterceptors(AnyFilesInterceptor())
@AcceptsContentTypes('*/*')
export class LegacyXmlController {
  constructor(private readonly legacyXml: LegacyXmlService) {}

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
    const { outcomes, status } = await this.legacyXml.process(contentOf(req), operation, user);
    sendLegacyXml(res, status, legacyResultsDocument(outcomes));
  }
}

/** What multer's memory storage gives a route for each file part (AnyFilesInterceptor). */
interface MultipartFile {
  fieldname: string;
  buffer: Buffer;
}

/** The XML document in the request's `content` field, whichever way it was sent. */
function contentOf(req: Request): string {
  const failure = rawBodyFailure(req);
  if (failure !== undefined) throw failure;
  const contentType = req.headers['content-type'];
  if (!/^\s*multipart\//i.test(contentType ?? '')) {
    return legacyXmlFromRequestBody(contentType, Buffer.isBuffer(req.body) ? req.body : undefined);
  }
  const fields = (req.body ?? {}) as Record<string, unknown>;
  const parts = (req as Request & { files?: MultipartFile[] }).files ?? [];
  const files = parts.filter((file) => file.fieldname === 'content');
  const values: unknown[] = [
    ...(Object.hasOwn(fields, 'content') ? [fields.content] : []),
    ...files.map((f) => f.buffer),
  ];
  return legacyXmlFromField(values.length === 1 ? values[0] : values.length === 0 ? undefined : values);
}
