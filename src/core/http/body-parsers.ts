import { HttpStatus } from '@nestjs/common';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { ApiError } from './api-error';

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

/** JSON and URL-encoded form bodies, limited to BODY_LIMIT. */
export function bodyParsers(config: AppConfig): RequestHandler[] {
  return [
    mapped(express.json({ limit: config.http.bodyLimit })),
    mapped(express.urlencoded({ limit: config.http.bodyLimit, extended: true, parameterLimit: 10_000 })),
  ];
}
