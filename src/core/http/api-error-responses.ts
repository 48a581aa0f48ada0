import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ErrorBody } from './error-body';

type Example = { message: string; errors: Record<string, string[]> };

/** Documents a 400 with the error body and an example naming the offending field. */
export const ApiBadRequestBody = (example: Example) =>
  ApiBadRequestResponse({ type: ErrorBody, description: 'Invalid input; `errors` names each field.', example });

/** Documents the 401 every route without `@Public()` answers to a missing, invalid or expired token. */
export const ApiUnauthorizedBody = () =>
  ApiUnauthorizedResponse({
    type: ErrorBody,
    description: 'Missing, invalid or expired access token.',
    example: { message: 'Authentication credentials were not provided or are invalid.', errors: {} },
  });

export const ApiNotFoundBody = (message: string) =>
  ApiNotFoundResponse({ type: ErrorBody, description: 'No such row.', example: { message, errors: {} } });

export const ApiForbiddenBody = (message: string) =>
  ApiForbiddenResponse({
    type: ErrorBody,
    description: 'Signed in, but not allowed.',
    example: { message, errors: {} },
  });

export const ApiConflictBody = (example: Example) =>
  ApiConflictResponse({ type: ErrorBody, description: 'The row already exists.', example });

/** The 400 every list with `?search=` (and `limit`) documents. */
export const ApiListErrors = () =>
  applyDecorators(
    ApiBadRequestBody({
      message: 'Validation failed: limit.',
      errors: { limit: ['limit must not be greater than 100'] },
    }),
  );
