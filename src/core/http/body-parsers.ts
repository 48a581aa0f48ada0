import { HttpStatus } from '@nestjs/common';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { ApiError } from './api-error';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH, refuseDeepJson } from './hostile-input';

interface BodyParserError {
  type?: string;
  limit?: number;
}

/** Maps body-parser's failures to the contract's statuses and messages. */
export function bodyParserError(error: unknown): ApiError | undefined {
  const { type, limit } = (error ?? {}) as BodyParserError;
  switch (type) {
    case 'entity.parse.failed':
      return ApiError.badRequest('Malformed JSON in request body.');
    case JSON_TOO_DEEP:
      return ApiError.badRequest(`JSON in request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    case 'entity.too.large':
      return new ApiError(
        HttpStatus.PAYLOAD_TOO_LARGE,
        `Request body is larger than the limit of ${limit ?? 'the configured'} bytes.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 'Unsupported request body encoding or charset.');
    case 'parameters.too.many':
      return new ApiError(HttpStatus.PAYLOAD_TOO_LARGE, 'Too many parameters in request body.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return ApiError.badRequest('The request body could not be read.');
    default:
      return undefined;
  }
}

/** Wraps a body parser so its errors reach the exception filter as ApiErrors. */
function mapped(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (error?: unknown) => {
      if (error === undefined || error === null) return next();
      next(bodyParserError(error) ?? error);
    });
}

/** Parser failures on raw-body paths, kept for the route to answer in its own format. */
const rawBodyFailures = new WeakMap<Request, Error>();

/**
 * Why the raw body of this request could not be read (as an ApiError when body-parser said why),
 * or undefined. Raw-body routes must check it: their body is then undefined.
 */
export function rawBodyFailure(req: Request): Error | undefined {
  return rawBodyFailures.get(req);
}

/** `/API/Samples/legacy-xml/` → `/api/samples/legacy-xml`: Express routes ignore case and a trailing slash. */
function routeKey(path: string): string {
  return path.toLowerCase().replace(/\/+$/, '');
}

/** Whether a request has a body, as body-parser decides it (type-is's hasBody). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

/**
 * JSON and URL-encoded form bodies, limited to BODY_LIMIT. Requests to `rawBodyPaths` skip both
 * and get the body's bytes as a Buffer instead (any media type; the route parses multipart),
 * limited to XML_BODY_LIMIT: the legacy XML endpoints must see `content=<?xml …&…` as sent.
 * One middleware: a request without a body (most are reads) passes at once, as every parser would
 * let it pass, without looking at its path three times.
 */
export function bodyParsers(config: AppConfig, rawBodyPaths: readonly string[] = []): RequestHandler[] {
  const rawPaths = new Set(rawBodyPaths.map(routeKey));
  const json = mapped(express.json({ limit: config.http.bodyLimit, verify: refuseDeepJson }));
  const form = mapped(express.urlencoded({ limit: config.http.bodyLimit, extended: true, parameterLimit: 10_000 }));
  // Every media type, multipart included: the whole body, however it is encoded, is bounded by
  // XML_BODY_LIMIT (counted as it arrives) before anything parses it.
  const raw = express.raw({ limit: config.http.xmlLimit, type: () => true });
  return [
    (req, res, next) => {
      if (!hasBody(req)) {
        if (!('body' in req)) (req as { body?: unknown }).body = undefined;
        next();
        return;
      }
      if (!rawPaths.has(routeKey(req.path))) {
        json(req, res, (error?: unknown) =>
          error === undefined || error === null ? form(req, res, next) : next(error),
        );
        return;
      }
      raw(req, res, (error?: unknown) => {
        // body-parser fails with http-errors (Error instances), like the parsers above.
        if (error !== undefined && error !== null) rawBodyFailures.set(req, bodyParserError(error) ?? (error as Error));
        next();
      });
    },
  ];
}
