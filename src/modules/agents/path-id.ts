import { ApiError } from '../../core/http/api-error';

const MAX_ID = 2_147_483_647;

/**
 * The `{id}` of a detail path. Anything that is not a row id (letters, zero, beyond the integer
 * column) cannot name a row, so it is answered like an unknown id: 404.
 */
export function parsePathId(raw: string, notFoundMessage: string): number {
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(id) || id < 1 || id > MAX_ID) throw ApiError.notFound(notFoundMessage);
  return id;
}
