import { ArgumentsHost, BadRequestException, Catch, ExceptionFilter, HttpStatus } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { HttpExceptionFilter } from '../../core/http/http-exception.filter';
import { LegacyXmlError, LegacyXmlErrorReason } from './legacy-xml.error';
import {
  LEGACY_XML_CONTENT_TYPE,
  LEGACY_XML_DEPRECATION_HEADERS,
  legacyErrorText,
  legacyInvalidAuthDocument,
  legacyInvalidXmlDocument,
} from './legacy-xml.responses';

const STATUS_BY_REASON: Readonly<Record<LegacyXmlErrorReason, HttpStatus>> = {
  'too-large': HttpStatus.PAYLOAD_TOO_LARGE,
  'unsupported-media-type': HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  'forbidden-declaration': HttpStatus.BAD_REQUEST,
  malformed: HttpStatus.BAD_REQUEST,
  'wrong-root': HttpStatus.BAD_REQUEST,
  'no-samples': HttpStatus.BAD_REQUEST,
  'missing-content': HttpStatus.BAD_REQUEST,
};

const BEARER_HINT =
  'Legacy usernames and passwords are not accepted: send a JWT access token as "Authorization: Bearer <token>".';

/** Old clients read these documents, never the JSON error body. */
export function sendLegacyXml(response: Response, status: number, document: string): void {
  response.status(status).set(LEGACY_XML_DEPRECATION_HEADERS).type(LEGACY_XML_CONTENT_TYPE).send(document);
}

/**
 * Every failure of the legacy XML routes, from the auth guard to the service, answered as the old
 * service's documents: 401 → InvalidAuth; anything else → InvalidXML with the status the JSON API
 * would have used (400, 413, 415, 503…). Failures are classified by the global filter, so an
 * unexpected error is logged there and answered 500 without its details.
 */
@Catch()
export class LegacyXmlExceptionFilter implements ExceptionFilter {
  private readonly classifier = new HttpExceptionFilter();

  constructor(@InjectAppConfig() private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    if (exception instanceof LegacyXmlError) {
      sendLegacyXml(response, STATUS_BY_REASON[exception.reason], legacyInvalidXmlDocument(exception.message));
      return;
    }
    if (isMulterFieldTooLong(exception)) {
      const message = `The content field is larger than the limit of ${this.config.http.xmlLimit} bytes.`;
      sendLegacyXml(response, HttpStatus.PAYLOAD_TOO_LARGE, legacyInvalidXmlDocument(message));
      return;
    }
    const { status, body, headers } = this.classifier.resolve(exception);
    for (const [name, value] of Object.entries(headers ?? {})) response.setHeader(name, value);
    if (status === Number(HttpStatus.UNAUTHORIZED)) {
      sendLegacyXml(response, status, legacyInvalidAuthDocument(`${body.message} ${BEARER_HINT}`));
      return;
    }
    sendLegacyXml(response, status, legacyInvalidXmlDocument(legacyErrorText(body.message, body.errors)));
  }
}

/**
 * multer stops reading a text part at its `fieldSize` limit (set to XML_BODY_LIMIT for these
 * routes) and Nest reports that as a 400; for the client it is the same 413 as an oversized body.
 */
function isMulterFieldTooLong(exception: unknown): boolean {
  return exception instanceof BadRequestException && exception.message.startsWith('Field value too long');
}
