/**
 * A UUID in its 8-4-4-4-12 hex form, as PostgreSQL's `uuid` type reads it. A looser check
 * (`^[0-9a-f-]{36}$` let 36 dashes through) hands PostgreSQL text it refuses: a 500.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
