import { ApiError } from './api-error';

/** PostgreSQL's `integer` (int4): every serial row id of the registry fits below this. */
export const MAX_ROW_ID = 2_147_483_647;

/** A value that can name a row: a whole number from 1 to MAX_ROW_ID (1e300 and 3e10 cannot). */
export function isRowId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ROW_ID;
}

/**
 * The `{id}` of a detail path. Anything that is not a row id (letters, zero, beyond the integer
 * column) cannot name a row, so it is answered like an unknown id: 404.
 */
export function parsePathId(raw: string, notFoundMessage: string): number {
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!isRowId(id)) throw ApiError.notFound(notFoundMessage);
  return id;
}
