import { HttpStatus, Injectable } from '@nestjs/common';
import { KeyObject, createPublicKey, createSecretKey } from 'node:crypto';
import jwt, { JwtHeader, JwtPayload } from 'jsonwebtoken';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { normaliseIssuer } from '../../core/config/integration-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { orcidId } from '../../core/identifiers/persistent-identifiers';
import { AccountsService } from '../accounts/accounts.service';
import { User } from '../accounts/user.entity';
import { AuthConnection } from './auth-connection.entity';
import { AuthConnectionRepository } from './auth-connection.repository';

const ASYMMETRIC_ALGORITHMS: jwt.Algorithm[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
];
const JWKS_CACHE_MS = 10 * 60 * 1000;
/**
 * An id_token naming a key we do not know refetches the issuer's keys (they may have rotated), but
 * at most once per this many ms per JWKS URL, and one fetch at a time: unknown `kid`s cannot make
 * us hammer the identity provider.
 */
export const JWKS_REFRESH_COOLDOWN_MS = 30 * 1000;
const INVALID_ID_TOKEN = 'The identity token is invalid or expired.';

export interface CreateConnectionInput {
  name: string;
  issuer: string;
  audience: string;
  jwksUrl?: string;
  publicKeyPem?: string;
  secret?: string;
}

/** What verifies an id_token: a connection, or the ORCID sign-in provider described as one. */
export type IdTokenIssuer = Pick<AuthConnection, 'issuer' | 'audience' | 'jwksUrl' | 'publicKey' | 'secret'>;

interface Jwk {
  kid?: string;
  kty: string;
  use?: string;
  [key: string]: unknown;
}

/**
 * The `email` claim, unless the issuer says it did not verify it (`email_verified: false`): anyone
 * may type any address into an identity provider's sign-up form. An issuer that does not send
 * `email_verified` at all is taken at its word.
 */
export function verifiedEmail(claims: JwtPayload): string | undefined {
  if (typeof claims.email !== 'string') return undefined;
  const verified: unknown = claims.email_verified;
  return verified === undefined || verified === true || verified === 'true' ? claims.email : undefined;
}

/**
 * Integration connections: OpenID Connect issuers whose id_tokens (signature, iss, aud, exp
 * verified) are exchanged for registry tokens. The identity is matched by `sub` to the user's ORCID
 * when the issuer is an ORCID issuer (config auth.orcidIdTokenIssuers), else by the `email` claim
 * to the user's email.
 */
@Injectable()
export class ConnectionService {
  private readonly jwksCache = new Map<string, { fetchedAt: number; keys: Jwk[] }>();
  /** The fetch under way per JWKS URL, which every concurrent caller awaits. */
  private readonly jwksInFlight = new Map<string, Promise<Jwk[]>>();
  /** When each JWKS URL was last asked (successfully or not), for the refresh cool-down. */
  private readonly jwksAskedAt = new Map<string, number>();

  constructor(
    private readonly authConnectionRepository: AuthConnectionRepository,
    private readonly accountsService: AccountsService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  async create(input: CreateConnectionInput): Promise<AuthConnection> {
    const name = input.name.trim();
    if (!/^[a-z0-9][a-z0-9_-]{0,99}$/i.test(name)) {
      throw ApiError.invalidField('name', 'must be 1-100 letters, digits, dashes or underscores');
    }
    const verifiers = [input.jwksUrl, input.publicKeyPem, input.secret].filter((value) => value !== undefined);
    if (verifiers.length !== 1) {
      throw ApiError.badRequest('Give exactly one of --jwks-url, --public-key-file or --secret.');
    }
    for (const [field, value] of [
      ['issuer', input.issuer],
      ['audience', input.audience],
    ] as const) {
      if (!value.trim() || value.length > 500) throw ApiError.invalidField(field, 'must be 1-500 characters');
    }
    if (input.jwksUrl !== undefined && !/^https?:\/\//.test(input.jwksUrl)) {
      throw ApiError.invalidField('jwks_url', 'must be an http(s) URL');
    }
    if (input.publicKeyPem !== undefined) {
      try {
        createPublicKey(input.publicKeyPem);
      } catch {
        throw ApiError.invalidField('public_key', 'must be a PEM public key');
      }
    }
    if (input.secret !== undefined && input.secret.length < 32) {
      throw ApiError.invalidField('secret', 'must be at least 32 characters');
    }
    if (await this.authConnectionRepository.existsByName(name)) {
      throw ApiError.conflict(`A connection named ${name} already exists.`, { name: ['already exists'] });
    }
    return this.authConnectionRepository.insert({
      name,
      issuer: input.issuer.trim(),
      audience: input.audience.trim(),
      jwksUrl: input.jwksUrl ?? null,
      publicKey: input.publicKeyPem ?? null,
      secret: input.secret ?? null,
    });
  }

  /** Verifies the id_token against the named connection and returns the matching active user. */
  async resolveUser(connectionName: string, idToken: unknown): Promise<{ user: User; connection: AuthConnection }> {
    const connection = await this.authConnectionRepository.findWithSecret(connectionName);
    if (!connection) throw ApiError.notFound(`No integration connection named ${connectionName}.`);
    const claims = await this.verifyIdToken(connection, idToken);
    // Only an ORCID issuer's `sub` is an ORCID iD; another issuer's `sub` is whatever that issuer
    // chose (a user could pick Alice's ORCID as their id there), so those sign in by email alone.
    const orcidIssuer = this.config.auth.orcidIdTokenIssuers.includes(normaliseIssuer(connection.issuer));
    const orcid = orcidIssuer && typeof claims.sub === 'string' ? orcidId(claims.sub, { sandbox: true }) : null;
    const byOrcid = orcid ? await this.accountsService.findByOrcid(orcid) : undefined;
    const email = verifiedEmail(claims);
    if (!byOrcid && typeof claims.email === 'string' && email === undefined) {
      throw ApiError.unauthorized('The identity provider has not verified this email address.');
    }
    const user = byOrcid ?? (email === undefined ? undefined : await this.accountsService.findByEmail(email));
    // Clients branch on these two answers (SESAR2: sign up first; or offer "request API access").
    if (!user || !user.isActive) {
      throw new ApiError(
        HttpStatus.UNAUTHORIZED,
        'No registry account matches this identity.',
        { token: ['matches no registry account; sign up (or link your ORCID iD) first'] },
        { 'WWW-Authenticate': 'Bearer' },
      );
    }
    if (user.uploadPermissionStatus !== 1 && !user.isStaff && !user.isAdmin) {
      throw new ApiError(HttpStatus.FORBIDDEN, 'This account has no upload permission.', {
        permissions: ['upload permission is required; ask for it with POST /api/api-access-request/'],
      });
    }
    return { user, connection };
  }

  /**
   * The claims of an id_token whose signature, `iss`, `aud` and `exp` the issuer's keys and names
   * verify, or a 401: the one check behind the connection exchange and the account pages' ORCID
   * sign-in (which passes its provider as an unsaved connection).
   */
  async verifyIdToken(issuer: IdTokenIssuer, idToken: unknown): Promise<JwtPayload> {
    if (typeof idToken !== 'string' || idToken.length === 0 || idToken.length > 16384) {
      throw ApiError.unauthorized(INVALID_ID_TOKEN);
    }
    const decoded = jwt.decode(idToken, { complete: true });
    if (!decoded || typeof decoded.payload === 'string') throw ApiError.unauthorized(INVALID_ID_TOKEN);
    const key = await this.verificationKey(issuer, decoded.header);
    let claims: string | JwtPayload;
    try {
      claims = jwt.verify(idToken, key, {
        algorithms: issuer.secret ? ['HS256', 'HS384', 'HS512'] : ASYMMETRIC_ALGORITHMS,
        issuer: issuer.issuer,
        audience: issuer.audience,
        clockTimestamp: Math.floor(this.clock.now().getTime() / 1000),
        clockTolerance: 30,
      });
    } catch {
      throw ApiError.unauthorized(INVALID_ID_TOKEN);
    }
    // jsonwebtoken checks `exp` only when present: an id_token that never expires is not one we take.
    if (typeof claims === 'string' || typeof claims.exp !== 'number') throw ApiError.unauthorized(INVALID_ID_TOKEN);
    return claims;
  }

  private async verificationKey(connection: IdTokenIssuer, header: JwtHeader): Promise<KeyObject> {
    if (connection.secret) return createSecretKey(Buffer.from(connection.secret, 'utf8'));
    if (connection.publicKey) return createPublicKey(connection.publicKey);
    const keys = await this.jwks(connection.jwksUrl ?? '', false);
    let jwk = keys.find((candidate) => candidate.kid === header.kid && candidate.use !== 'enc');
    if (!jwk && header.kid) {
      // The issuer may have rotated its keys since we cached them.
      jwk = (await this.jwks(connection.jwksUrl ?? '', true)).find((candidate) => candidate.kid === header.kid);
    }
    if (!jwk && !header.kid && keys.length === 1) jwk = keys[0];
    if (!jwk) throw ApiError.unauthorized(INVALID_ID_TOKEN);
    try {
      return createPublicKey({ key: jwk as unknown as import('node:crypto').JsonWebKey, format: 'jwk' });
    } catch {
      throw ApiError.unauthorized(INVALID_ID_TOKEN);
    }
  }

  /**
   * The issuer's keys: cached for JWKS_CACHE_MS; `refresh` (an unknown kid) fetches again only when
   * the last fetch is older than the cool-down. Concurrent callers share one fetch.
   */
  private async jwks(url: string, refresh: boolean): Promise<Jwk[]> {
    const cached = this.jwksCache.get(url);
    const now = Date.now();
    if (cached && now - cached.fetchedAt < JWKS_CACHE_MS) {
      if (!refresh || now - (this.jwksAskedAt.get(url) ?? 0) < JWKS_REFRESH_COOLDOWN_MS) return cached.keys;
    }
    let pending = this.jwksInFlight.get(url);
    if (!pending) {
      this.jwksAskedAt.set(url, now);
      pending = this.fetchJwks(url).finally(() => this.jwksInFlight.delete(url));
      this.jwksInFlight.set(url, pending);
    }
    return pending;
  }

  private async fetchJwks(url: string): Promise<Jwk[]> {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { keys?: Jwk[] };
      const keys = Array.isArray(body.keys) ? body.keys : [];
      this.jwksCache.set(url, { fetchedAt: Date.now(), keys });
      return keys;
    } catch {
      throw ApiError.serviceUnavailable('The identity provider’s signing keys could not be fetched.');
    }
  }
}
