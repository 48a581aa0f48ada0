import { ApiError } from '../../core/http/api-error';
import { FieldErrors } from '../../core/http/error-body';

/**
 * SESAR2's names for sample fields that we spell differently, accepted beside ours in JSON writes
 * (POST, PATCH) and as batch column headers: alias → our field. The evidence is SESAR's own
 * documentation (docs/integrations/sesar2-clients.md lists it row by row). `sesar_code` is not here:
 * it predates this map and keeps its own rules (registry_code cannot change, the two must agree).
 */
export const SAMPLE_FIELD_ALIASES = {
  latitude_end: 'end_latitude',
  longitude_end: 'end_longitude',
  material_name_verbatim: 'field_name',
} as const;

export type SampleFieldAlias = keyof typeof SAMPLE_FIELD_ALIASES;
type AliasedField = (typeof SAMPLE_FIELD_ALIASES)[SampleFieldAlias];

/** The aliases of one of our fields (what a batch header may also say). */
export function aliasesOfField(field: string): string[] {
  return Object.entries(SAMPLE_FIELD_ALIASES)
    .filter(([, target]) => target === field)
    .map(([alias]) => alias);
}

/** Two sent values mean the same when they serialize alike (numbers, strings, null). */
function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const ALIASES = Object.keys(SAMPLE_FIELD_ALIASES) as SampleFieldAlias[];

/**
 * The write with every alias folded into our field name (the alias key removed). An alias and our
 * name sent together must carry the same value; otherwise 400 naming the alias, and nothing is
 * written. A write that gives no alias a value is returned as it is: a DTO has every field as its
 * own property, and copying it to delete three undefined ones cost a batch row more than the rest of
 * its preparation (the copy then became a slow dictionary-mode object).
 */
export function withCanonicalFieldNames<T extends Partial<Record<SampleFieldAlias | AliasedField, unknown>>>(
  body: T,
): T {
  if (ALIASES.every((alias) => body[alias] === undefined)) return body;
  const result: Record<string, unknown> = { ...body };
  const errors: FieldErrors = {};
  for (const [alias, field] of Object.entries(SAMPLE_FIELD_ALIASES)) {
    const value = result[alias];
    delete result[alias];
    if (value === undefined) continue;
    if (result[field] !== undefined && !sameValue(result[field], value)) {
      errors[alias] = [`is SESAR2's name for ${field}, which was sent with a different value; send one`];
      continue;
    }
    result[field] = value;
  }
  if (Object.keys(errors).length) {
    throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
  }
  return result as T;
}
