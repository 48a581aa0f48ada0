import { Injectable, Logger } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { OrcidSignInConfig } from '../../core/config/integration-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { AccountsService } from '../accounts/accounts.service';
import { User } from '../accounts/user.entity';
import { ConnectionService, verifiedEmail } from './connection.service';

/** How long a browser has between leaving for ORCID and coming back. */
export const ORCID_FLOW_SECONDS = 600;
const DISCOVERY_CACHE_MS = 60 * 60 * 1000;
const PROVIDER_TIMEOUT_MS = 10_000;
const SIGN_IN_FAILED = 'The sign-in with ORCID could not be completed. Please try again.';

interface ProviderEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
}

/** What the browser keeps (in a signed, HttpOnly cookie) between leaving for ORCID and coming back. */
interface FlowClaims {
  typ: 'orcid-flow';
  state: string;
  nonce: string;
  verifier: string;
  next: string;
}

function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function httpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** The person's name as the id_token gives it (ORCID: given_name and family_name, when public). */
function nameFrom(claims: Record<string, unknown>): string | null {
  const parts = [claims.given_name, claims.family_name].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  if (parts.length) return parts.map((part) => part.trim()).join(' ');
  return typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim() : null;
}

/**
 * Sign in with ORCID on the account pages: the OpenID Connect authorization code flow with PKCE
 * (S256), `state` and `nonce`, against ORCID_ISSUER (discovery read from the issuer, cached an
 * hour). The id_token is checked by ConnectionService.verifyIdToken — the same check the
 * connection exchange uses — and then its nonce; `sub` is the ORCID iD, which finds or makes the
 * account (AccountsService.signInWithOrcid) or is linked to the signed-in one.
 */
@Injectable()
export class OrcidSignInService {
  private readonly logger = new Logger(OrcidSignInService.name);
  private discovery?: { fetchedAt: number; endpoints: Promise<ProviderEndpoints> };

  constructor(
    @InjectAppConfig() private readonly config: AppConfig,
    private readonly connectionService: ConnectionService,
    private readonly accountsService: AccountsService,
    private readonly jwtService: JwtService,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.config.auth.orcid !== null;
  }

  private provider(): OrcidSignInConfig {
    const provider = this.config.auth.orcid;
    if (!provider) throw ApiError.notFound('Sign in with ORCID is not configured on this registry.');
    return provider;
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  /**
   * Where to send the browser, and the flow token it keeps meanwhile (signed by the registry, so it
   * cannot be altered; the PKCE verifier never leaves the registry's cookie and ORCID's token call).
   */
  async start(redirectUri: string, next: string): Promise<{ url: string; flowToken: string }> {
    const provider = this.provider();
    const endpoints = await this.endpoints();
    const flow: FlowClaims = {
      typ: 'orcid-flow',
      state: randomToken(),
      nonce: randomToken(),
      verifier: randomToken(),
      next,
    };
    const challenge = createHash('sha256').update(flow.verifier).digest('base64url');
    const url = new URL(endpoints.authorizationEndpoint);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: redirectUri,
      scope: 'openid',
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })) {
      url.searchParams.set(name, value);
    }
    const now = this.nowSeconds();
    const flowToken = this.jwtService.sign({ ...flow, iat: now, exp: now + ORCID_FLOW_SECONDS });
    return { url: url.toString(), flowToken };
  }

  /**
   * The flow's end: checks `state` against the browser's flow token, redeems the code (with the
   * PKCE verifier), verifies the id_token and its nonce. Signed in already: links the iD to that
   * account. Otherwise: the account linked to the iD, made on first sign-in. Any failure is a 4xx
   * that says to try again; the provider unreachable is a 503.
   */
  async finish(
    query: { code?: unknown; state?: unknown; error?: unknown },
    flowToken: string | undefined,
    redirectUri: string,
    signedInUserId?: number,
  ): Promise<{ user: User; next: string; linked: boolean }> {
    const provider = this.provider();
    const flow = this.readFlow(flowToken);
    if (typeof query.state !== 'string' || !sameSecret(query.state, flow.state)) {
      throw ApiError.badRequest(`${SIGN_IN_FAILED} (The sign-in took too long, or did not start here.)`);
    }
    if (query.error !== undefined) {
      throw ApiError.unauthorized(
        query.error === 'access_denied' ? 'You did not allow the registry to read your ORCID iD.' : SIGN_IN_FAILED,
      );
    }
    if (typeof query.code !== 'string' || query.code.length === 0 || query.code.length > 2048) {
      throw ApiError.badRequest(SIGN_IN_FAILED);
    }
    const endpoints = await this.endpoints();
    const idToken = await this.redeem(endpoints, provider, query.code, flow.verifier, redirectUri);
    const claims = await this.connectionService.verifyIdToken(
      {
        issuer: provider.issuer,
        audience: provider.clientId,
        jwksUrl: endpoints.jwksUri,
        publicKey: null,
        secret: null,
      },
      idToken,
    );
    if (typeof claims.nonce !== 'string' || !sameSecret(claims.nonce, flow.nonce)) {
      throw ApiError.unauthorized(SIGN_IN_FAILED);
    }
    let orcid: string;
    try {
      orcid = AccountsService.normaliseOrcid(typeof claims.sub === 'string' ? claims.sub : '');
    } catch {
      throw ApiError.unauthorized('The identity provider did not give an ORCID iD.');
    }
    if (signedInUserId !== undefined) {
      return { user: await this.accountsService.linkOrcid(signedInUserId, orcid), next: flow.next, linked: true };
    }
    const user = await this.accountsService.signInWithOrcid({
      orcid,
      name: nameFrom(claims),
      email: verifiedEmail(claims) ?? null,
    });
    if (!user.isActive) throw ApiError.forbidden('This account has been deactivated.');
    return { user, next: flow.next, linked: false };
  }

  private readFlow(flowToken: string | undefined): FlowClaims {
    try {
      const claims = this.jwtService.verify<FlowClaims & { exp: number }>(flowToken ?? '', {
        clockTimestamp: this.nowSeconds(),
      });
      if (claims.typ === 'orcid-flow' && typeof claims.state === 'string' && typeof claims.verifier === 'string') {
        return claims;
      }
    } catch {
      // answered below
    }
    throw ApiError.badRequest(`${SIGN_IN_FAILED} (The sign-in took too long, or did not start here.)`);
  }

  /** The code for tokens at the provider's token endpoint (client_secret_post, as ORCID documents). */
  private async redeem(
    endpoints: ProviderEndpoints,
    provider: OrcidSignInConfig,
    code: string,
    verifier: string,
    redirectUri: string,
  ): Promise<string> {
    let response: Response;
    try {
      response = await fetch(endpoints.tokenEndpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: provider.clientId,
          client_secret: provider.clientSecret,
          code_verifier: verifier,
        }),
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
    } catch (error) {
      this.logger.warn(`ORCID token endpoint unreachable: ${(error as Error).message}`);
      throw ApiError.serviceUnavailable('ORCID cannot be reached right now. Please try again in a few minutes.');
    }
    const body = (await response.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown };
    if (response.status >= 500) {
      throw ApiError.serviceUnavailable('ORCID cannot be reached right now. Please try again in a few minutes.');
    }
    if (!response.ok || typeof body.id_token !== 'string') {
      this.logger.warn(`ORCID refused the authorization code: HTTP ${response.status} ${String(body.error)}`);
      throw ApiError.unauthorized(SIGN_IN_FAILED);
    }
    return body.id_token;
  }

  /**
   * The provider's endpoints from its discovery document, fetched once an hour; concurrent sign-ins
   * share one fetch, and a failed fetch is not kept.
   */
  private async endpoints(): Promise<ProviderEndpoints> {
    const now = Date.now();
    if (!this.discovery || now - this.discovery.fetchedAt > DISCOVERY_CACHE_MS) {
      const endpoints = this.discover(this.provider().issuer);
      this.discovery = { fetchedAt: now, endpoints };
      endpoints.catch(() => {
        if (this.discovery?.endpoints === endpoints) this.discovery = undefined;
      });
    }
    return this.discovery.endpoints;
  }

  private async discover(issuer: string): Promise<ProviderEndpoints> {
    const unavailable = ApiError.serviceUnavailable(
      'ORCID cannot be reached right now. Please try again in a few minutes.',
    );
    let document: Record<string, unknown>;
    try {
      const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      document = (await response.json()) as Record<string, unknown>;
    } catch (error) {
      this.logger.warn(`ORCID discovery failed: ${(error as Error).message}`);
      throw unavailable;
    }
    // OpenID Connect Discovery: the document must name the issuer it was fetched from.
    const named = typeof document.issuer === 'string' ? document.issuer.replace(/\/+$/, '') : undefined;
    const { authorization_endpoint: authorize, token_endpoint: token, jwks_uri: jwks } = document;
    if (named !== issuer || !httpUrl(authorize) || !httpUrl(token) || !httpUrl(jwks)) {
      this.logger.warn(`ORCID discovery document of ${issuer} is not usable (issuer ${String(document.issuer)})`);
      throw unavailable;
    }
    return { authorizationEndpoint: authorize, tokenEndpoint: token, jwksUri: jwks };
  }
}
