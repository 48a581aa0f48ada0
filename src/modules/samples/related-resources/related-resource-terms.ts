import { isDoi } from '../../../core/identifiers/persistent-identifiers';

/**
 * The closed lists of a related resource, as SESAR's documentation names them: the kind of
 * resource (its migration typed documents by MIME: image, text, dataset, or other) and the kind of
 * address (`DOI`, a web `URL`, a `local file`, or `Other`). Matched in any letter case; stored as
 * spelled here.
 */
export const RELATED_RESOURCE_TYPES = ['image', 'text', 'dataset', 'other'] as const;
export const URI_TYPES = ['DOI', 'URL', 'local file', 'Other'] as const;

export type UriType = (typeof URI_TYPES)[number];

/** The list's spelling of `value` (any case, blanks trimmed); undefined when it is not on the list. */
export function termOf<T extends string>(list: readonly T[], value: string): T | undefined {
  const wanted = value.trim().toLowerCase();
  return list.find((term) => term.toLowerCase() === wanted);
}

const WEB_ADDRESS = /^(https?|ftp):\/\/[^\s/$.?#][^\s]*$/i;

/** The uri type a resource gets when none is sent: DOI for a DOI (bare, `doi:` or doi.org), else URL. */
export function inferredUriType(uri: string): UriType {
  return isDoi(uri.trim()) ? 'DOI' : 'URL';
}

/** Why `uri` does not fit `uriType`, or undefined when it does. */
export function uriProblem(uri: string, uriType: UriType): string | undefined {
  if (uriType === 'DOI') {
    return isDoi(uri) ? undefined : 'must be a DOI (10.xxxx/…, doi:10.xxxx/… or https://doi.org/10.xxxx/…)';
  }
  if (uriType === 'local file' || uriType === 'Other') return undefined;
  return WEB_ADDRESS.test(uri) ? undefined : 'must be an http(s) or ftp URL';
}
