import { ConfigError, Env, integer, raw, required, url } from './env-values';

/** The integrations' configuration: DataCite (DOI registration) and ORCID (sign-in, id_token issuers). */

export interface DataCiteConfig {
  /** REST API base, e.g. `https://api.test.datacite.org`. */
  apiUrl: string;
  repositoryId: string;
  password: string;
  /** Requests to DataCite in flight at once, per worker. */
  concurrency: number;
  /** A request that takes longer is abandoned and retried. */
  timeoutMs: number;
  /** DataCite requests per 5 minutes, all workers together (DataCite allows about 3,000 per client address). */
  requestsPer5Min: number;
  /** Of those, at most this many for bulk work (large batches, re-sends); the rest stays for interactive changes. */
  bulkRequestsPer5Min: number;
}

/** The OpenID Connect provider people sign in with on the account pages (ORCID). */
export interface OrcidSignInConfig {
  /** Issuer URL: `https://orcid.org` (production), `https://sandbox.orcid.org`; discovery is read from it. */
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const DATACITE_VARIABLES = ['DATACITE_API_URL', 'DATACITE_REPOSITORY_ID', 'DATACITE_PASSWORD'] as const;

/** All three DataCite variables, or none (registration off); registering needs PUBLIC_URL for the DOI targets. */
export function dataCiteConfig(env: Env, publicUrl: string | null): DataCiteConfig | null {
  const given = DATACITE_VARIABLES.filter((name) => raw(env, name) !== undefined);
  if (given.length === 0) return null;
  const missing = DATACITE_VARIABLES.find((name) => raw(env, name) === undefined);
  if (missing) throw new ConfigError(missing, `is required when ${given[0]} is set (DataCite registration).`);
  if (publicUrl === null) {
    throw new ConfigError(
      'PUBLIC_URL',
      'is required when DataCite registration is configured (the DOIs resolve to it).',
    );
  }
  const requestsPer5Min = integer(env, 'DATACITE_REQUESTS_PER_5_MIN', 2500, 1, 1_000_000);
  const bulkRequestsPer5Min = integer(
    env,
    'DATACITE_BULK_REQUESTS_PER_5_MIN',
    Math.min(500, requestsPer5Min),
    1,
    1_000_000,
  );
  if (bulkRequestsPer5Min > requestsPer5Min) {
    throw new ConfigError(
      'DATACITE_BULK_REQUESTS_PER_5_MIN',
      `must be at most DATACITE_REQUESTS_PER_5_MIN (${requestsPer5Min}): bulk work shares that budget.`,
    );
  }
  return {
    apiUrl: url(env, 'DATACITE_API_URL', ['http:', 'https:'], 'https://api.test.datacite.org').replace(/\/+$/, ''),
    repositoryId: required(env, 'DATACITE_REPOSITORY_ID', 'the DataCite repository id, e.g. ABC.XYZ'),
    password: required(env, 'DATACITE_PASSWORD', 'the DataCite repository password'),
    concurrency: integer(env, 'DATACITE_CONCURRENCY', 4, 1, 64),
    timeoutMs: integer(env, 'DATACITE_TIMEOUT_MS', 30000, 100, 600000),
    requestsPer5Min,
    bulkRequestsPer5Min,
  };
}

const ORCID_VARIABLES = ['ORCID_CLIENT_ID', 'ORCID_CLIENT_SECRET'] as const;

/** Both client variables, or neither (ORCID sign-in off); the issuer defaults to ORCID's public one. */
export function orcidConfig(env: Env): OrcidSignInConfig | null {
  const given = ORCID_VARIABLES.filter((name) => raw(env, name) !== undefined);
  if (given.length === 0) return null;
  const missing = ORCID_VARIABLES.find((name) => raw(env, name) === undefined);
  if (missing) throw new ConfigError(missing, `is required when ${given[0]} is set (sign in with ORCID).`);
  const issuer =
    raw(env, 'ORCID_ISSUER') === undefined
      ? 'https://orcid.org'
      : url(env, 'ORCID_ISSUER', ['http:', 'https:'], 'https://orcid.org or https://sandbox.orcid.org');
  const clientId = required(env, 'ORCID_CLIENT_ID', "the client id of the registry's ORCID API credentials");
  if (!/^[\x21-\x7e]{1,200}$/.test(clientId)) {
    throw new ConfigError('ORCID_CLIENT_ID', 'must be 1-200 printable characters without spaces.');
  }
  return {
    issuer: issuer.replace(/\/+$/, ''),
    clientId,
    clientSecret: required(env, 'ORCID_CLIENT_SECRET', 'the client secret of those credentials'),
  };
}

/** Issuer URLs compare without a trailing slash. */
export function normaliseIssuer(issuer: string): string {
  return issuer.trim().replace(/\/+$/, '');
}

export function orcidIdTokenIssuers(env: Env): string[] {
  const listed = (raw(env, 'ORCID_ID_TOKEN_ISSUERS') ?? 'https://orcid.org,https://sandbox.orcid.org')
    .split(',')
    .map(normaliseIssuer)
    .filter(Boolean);
  for (const issuer of listed) {
    if (!/^https?:\/\/\S+$/.test(issuer)) {
      throw new ConfigError(
        'ORCID_ID_TOKEN_ISSUERS',
        `must be a comma-separated list of issuer URLs, got "${issuer}".`,
      );
    }
  }
  const signIn = raw(env, 'ORCID_ISSUER');
  return [...new Set([...listed, ...(signIn ? [normaliseIssuer(signIn)] : [])])];
}
