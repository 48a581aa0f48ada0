import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { ErrorBody, FieldErrors, errorBody } from './error-body';

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '57P01',
]);

/** query_canceled (statement_timeout), lock_not_available (lock_timeout), too_many_connections. */
const OVERLOAD_SQLSTATES = new Set(['57014', '55P03', '53300']);

function messageOf(response: string | object, fallback: string): string {
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message) && message.every((m) => typeof m === 'string')) return message.join('; ');
  return fallback;
}

function errorsOf(response: string | object): FieldErrors {
  if (typeof response !== 'object') return {};
  const errors = (response as { errors?: unknown }).errors;
  return typeof errors === 'object' && errors !== null && !Array.isArray(errors) ? (errors as FieldErrors) : {};
}

function withPeriod(message: string): string {
  return /[.!?]$/.test(message) ? message : `${message}.`;
}

interface Resolved {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

/**
 * The single place where failures become HTTP answers: every error, whether thrown by a service,
 * the validation pipe, Nest's router or Express's body parser, leaves as `{message, errors}`.
 * Unexpected errors are logged with their stack and answered 500 without one.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const resolved = this.resolve(exception);
    if (response.headersSent) {
      response.end();
      return;
    }
    for (const [name, value] of Object.entries(resolved.headers ?? {})) response.setHeader(name, value);
    response.status(resolved.status).json(resolved.body);
  }

  resolve(exception: unknown): Resolved {
    if (exception instanceof ApiError) {
      return { status: exception.getStatus(), body: exception.getResponse() as ErrorBody, headers: exception.headers };
    }
    if (exception instanceof HttpException) return this.fromHttpException(exception);
    // SQLSTATE of a failed statement, whether it came through TypeORM or straight from the pg pool.
    const sqlState =
      exception instanceof QueryFailedError
        ? (exception.driverError as { code?: string } | undefined)?.code
        : (exception as { code?: string } | null)?.code;
    if (sqlState === '23505') {
      return { status: HttpStatus.CONFLICT, body: errorBody('The request conflicts with an existing record.') };
    }
    if (sqlState && OVERLOAD_SQLSTATES.has(sqlState)) {
      // A statement timeout or lock timeout: the database is overloaded, not the request wrong.
      this.logger.warn(`Statement cancelled (${sqlState}): ${String((exception as Error).message)}`);
      return {
        status: HttpStatus.SERVICE_UNAVAILABLE,
        body: errorBody('The database is busy; try again shortly.'),
        headers: { 'Retry-After': '5' },
      };
    }
    const code = (exception as { code?: string } | null)?.code;
    const name = (exception as { name?: string } | null)?.name;
    const message = (exception as { message?: unknown } | null)?.message;
    const poolExhausted = typeof message === 'string' && message.includes('timeout exceeded when trying to connect');
    if ((code && CONNECTION_ERROR_CODES.has(code)) || name === 'MaxRetriesPerRequestError' || poolExhausted) {
      this.logger.error(`Dependency unavailable: ${String((exception as Error).message)}`);
      return {
        status: HttpStatus.SERVICE_UNAVAILABLE,
        body: errorBody('A service dependency is unavailable; try again shortly.'),
        headers: { 'Retry-After': '5' },
      };
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, body: errorBody('Internal server error.') };
  }

  private fromHttpException(exception: HttpException): Resolved {
    const status = exception.getStatus() as HttpStatus;
    const response = exception.getResponse();
    const headers: Record<string, string> = {};
    if (status === HttpStatus.UNAUTHORIZED) headers['WWW-Authenticate'] = 'Bearer';
    switch (status) {
      case HttpStatus.NOT_FOUND: {
        const message = messageOf(response, 'Not found.');
        // Nest's router says "Cannot GET /x" for routes that do not exist.
        const route = /^Cannot (\w+) (.*)$/.exec(message);
        return {
          status,
          body: errorBody(
            route ? `No route matches ${route[1]} ${route[2]}.` : withPeriod(message),
            errorsOf(response),
          ),
        };
      }
      case HttpStatus.PAYLOAD_TOO_LARGE:
        return { status, body: errorBody('Request body is too large.', errorsOf(response)) };
      case HttpStatus.TOO_MANY_REQUESTS:
        return { status, body: errorBody('Too many requests; try again later.'), headers };
      default:
        return {
          status,
          body: errorBody(withPeriod(messageOf(response, exception.message)), errorsOf(response)),
          headers,
        };
    }
  }
}
