/**
 * ORCID iDs (people), ROR ids (organisations) and DOIs as the registry reads them: bare or as the
 * resolver's URL, one parser each, for every module that meets them (accounts and sign-in, search,
 * the metadata formats). A leaf: it imports nothing.
 */

const ORCID_ID = /^(?:https?:\/\/(?:www\.)?orcid\.org\/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])\/?$/i;
/** ORCID's sandbox is another registry of iDs: accepted only where a sandbox issuer may speak. */
const ORCID_OR_SANDBOX_ID = /^(?:https?:\/\/(?:www\.|sandbox\.)?orcid\.org\/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])\/?$/i;
const ROR_ID = /^(?:https?:\/\/(?:www\.)?ror\.org\/)?(0[0-9a-hjkmnp-tv-z]{6}\d{2})\/?$/i;
/** A DOI at the resolver (`https://doi.org/…`, `dx.` or `www.`) or as `doi:…`: the DOI is group 1. */
const DOI_URI = /^(?:https?:\/\/(?:dx\.|www\.)?doi\.org\/|doi:)(10\.\d{4,9}\/\S+)$/i;
/** A bare DOI (`10.1594/PANGAEA.123456`). */
const BARE_DOI = /^10\.\d{4,9}\/\S+$/;
/** A DOI bare or in either of the forms above. */
const DOI = /^(?:https?:\/\/(?:dx\.|www\.)?doi\.org\/|doi:)?(10\.\d{4,9}\/\S+)$/i;

export const ORCID_RESOLVER = 'https://orcid.org/';
export const ROR_RESOLVER = 'https://ror.org/';
export const DOI_RESOLVER = 'https://doi.org/';

const trimmed = (value: string | null | undefined): string => (value ?? '').trim();

/**
 * The bare ORCID iD (`0000-0002-1825-0097`, its check character upper case) when the value is one,
 * bare or as an orcid.org URL (a sandbox.orcid.org one too with `sandbox`); else null.
 */
export function orcidId(value: string | null | undefined, options: { sandbox?: boolean } = {}): string | null {
  const match = (options.sandbox ? ORCID_OR_SANDBOX_ID : ORCID_ID).exec(trimmed(value));
  return match ? match[1].toUpperCase() : null;
}

/** `https://orcid.org/…` when the value is an ORCID iD (bare or as URL), else null. */
export function orcidUrl(value: string | null | undefined): string | null {
  const id = orcidId(value);
  return id === null ? null : `${ORCID_RESOLVER}${id}`;
}

/** `https://ror.org/…` when the value is a ROR id (bare or as URL), else null. */
export function rorUrl(value: string | null | undefined): string | null {
  const match = ROR_ID.exec(trimmed(value));
  return match ? `${ROR_RESOLVER}${match[1].toLowerCase()}` : null;
}

export function doiUrl(doi: string): string {
  return `${DOI_RESOLVER}${doi}`;
}

/** Whether the value is a DOI: bare, `doi:…` or at the resolver. */
export function isDoi(value: string): boolean {
  return DOI.test(value);
}

/** Whether the value is a bare DOI (`10.1594/PANGAEA.123456`), without resolver or `doi:`. */
export function isBareDoi(value: string): boolean {
  return BARE_DOI.test(value);
}

/**
 * A related resource's identifier: a DOI written as a resolver URL or `doi:` (decoded, without
 * the prefix), or the address itself as a URL. A bare DOI is a URL here; callers that know the
 * value is a DOI (its uri_type says so) take it as it is.
 */
export function resourceIdentifier(uri: string): { type: 'DOI' | 'URL'; value: string } {
  const match = DOI_URI.exec(uri.trim());
  if (!match) return { type: 'URL', value: uri.trim() };
  try {
    return { type: 'DOI', value: decodeURIComponent(match[1]) };
  } catch {
    return { type: 'DOI', value: match[1] };
  }
}
