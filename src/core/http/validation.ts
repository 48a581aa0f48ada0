import { ValidationPipe } from '@nestjs/common';
import { ValidationError } from 'class-validator';
import { ApiError } from './api-error';
import { FieldErrors } from './error-body';

/** Turns class-validator's error tree into `{ "collectors.0.individual.label": [...] }`. */
export function flattenValidationErrors(errors: ValidationError[], parentPath = ''): FieldErrors {
  const result: FieldErrors = {};
  for (const error of errors) {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    if (error.constraints) {
      result[path] = Object.entries(error.constraints).map(([name, message]) =>
        name === 'whitelistValidation' ? 'This field is not allowed.' : message,
      );
    }
    if (error.children?.length) Object.assign(result, flattenValidationErrors(error.children, path));
  }
  return result;
}

export function validationFailed(errors: ValidationError[]): ApiError {
  const fieldErrors = flattenValidationErrors(errors);
  const fields = Object.keys(fieldErrors);
  const message = fields.length ? `Validation failed: ${fields.join(', ')}.` : 'Validation failed.';
  return ApiError.badRequest(message, fieldErrors);
}

/** The global pipe: unknown fields rejected, payloads transformed into DTO instances. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: validationFailed,
  });
}
