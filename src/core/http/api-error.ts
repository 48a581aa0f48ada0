import { HttpException, HttpStatus } from '@nestjs/common';
import { FieldErrors, errorBody } from './error-body';

/**
 * An HttpException whose response is already the contract's error body. Services throw these
 * (via the helpers below) so the message a user reads is decided where the rule lives.
 */
export class ApiError extends HttpException {
  constructor(
    status: HttpStatus,
    message: string,
    readonly fieldErrors: FieldErrors = {},
    readonly headers: Record<string, string> = {},
    /** Members the body carries beside `message` and `errors` (a 410's tombstone). */
    extra: Record<string, unknown> = {},
  ) {
    super({ ...errorBody(message, fieldErrors), ...extra }, status);
  }

  static badRequest(message: string, errors: FieldErrors = {}): ApiError {
    return new ApiError(HttpStatus.BAD_REQUEST, message, errors);
  }

  /** A 400 about one field: `ApiError.invalidField('page', 'must be a positive integer')`. */
  static invalidField(field: string, problem: string): ApiError {
    return new ApiError(HttpStatus.BAD_REQUEST, `Invalid ${field}: ${problem}.`, { [field]: [problem] });
  }

  static unauthorized(message = 'Authentication credentials were not provided or are invalid.'): ApiError {
    return new ApiError(HttpStatus.UNAUTHORIZED, message, {}, { 'WWW-Authenticate': 'Bearer' });
  }

  static forbidden(message = 'You do not have permission to perform this action.'): ApiError {
    return new ApiError(HttpStatus.FORBIDDEN, message);
  }

  /** A 403 about one field: the value is known and valid, but this caller may not use it. */
  static forbiddenField(field: string, problem: string): ApiError {
    return new ApiError(HttpStatus.FORBIDDEN, `Not allowed: ${field} ${problem}.`, { [field]: [problem] });
  }

  static notFound(message = 'Not found.'): ApiError {
    return new ApiError(HttpStatus.NOT_FOUND, message);
  }

  /** 410: the resource existed and was retired; `extra` says what remains of it (a tombstone). */
  static gone(message: string, extra: Record<string, unknown> = {}): ApiError {
    return new ApiError(HttpStatus.GONE, message, {}, {}, extra);
  }

  static conflict(message: string, errors: FieldErrors = {}): ApiError {
    return new ApiError(HttpStatus.CONFLICT, message, errors);
  }

  static serviceUnavailable(message: string, errors: FieldErrors = {}): ApiError {
    return new ApiError(HttpStatus.SERVICE_UNAVAILABLE, message, errors);
  }
}
