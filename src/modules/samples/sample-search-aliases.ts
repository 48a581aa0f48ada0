import { ApiError } from '../../core/http/api-error';

/** Search parameters SESAR2 clients send, and the parameter of ours each one is. */
export const SEARCH_PARAMETER_ALIASES = { search: 'q', sesar_code: 'registry_code' } as const;

/**
 * The query with SESAR2's parameter names turned into ours (`search` → `q`, `sesar_code` →
 * `registry_code`) and `ordering` taken out. An alias sent beside its own parameter with another
 * value is a 400 naming both: which one was meant cannot be guessed.
 */
export function withoutSearchAliases(query: Record<string, string | string[] | undefined>): {
  query: Record<string, string | string[] | undefined>;
  ordering: string | string[] | undefined;
} {
  const { ordering, ...rest } = query;
  for (const [alias, own] of Object.entries(SEARCH_PARAMETER_ALIASES)) {
    const value = rest[alias];
    if (value === undefined) continue;
    delete rest[alias];
    if (rest[own] !== undefined && rest[own] !== value) {
      throw ApiError.badRequest(`Give ${alias} or ${own}, not both.`, {
        [alias]: [`means the same as ${own}; send one of them`],
        [own]: [`means the same as ${alias}; send one of them`],
      });
    }
    rest[own] = value;
  }
  return { query: rest, ordering };
}
