import { createHash, generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

/** Who the fake provider says signed in (ORCID puts the iD in `sub` and the public name parts beside it). */
export interface FakeIdentity {
  sub: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
}

interface IssuedCode {
  identity: FakeIdentity;
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  challenge: string | undefined;
  used: boolean;
}

/** An ORCID-shaped iD (16 random digits) no fixed test identity uses. */
export function randomOrcid(): string {
  const digits = Array.from({ length: 16 }, () => randomInt(10)).join('');
  return digits.match(/.{4}/g)?.join('-') ?? digits;
}

function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * An OpenID Connect provider inside the test process, shaped like ORCID's: discovery, JWKS (RS256),
 * an authorize page with Authorize and Deny buttons, and a token endpoint that checks what a real
 * provider checks — the client's id and secret (client_secret_post), the redirect URI, a code used
 * once, and the PKCE verifier against the S256 challenge. The test chooses who signs in next
 * (`nextIdentity`) and may make the next id_token carry a wrong nonce.
 */
export class FakeOpenIdProvider {
  readonly clientId = `APP-${randomBytes(6).toString('hex').toUpperCase()}`;
  readonly clientSecret = randomBytes(16).toString('hex');
  private readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly codes = new Map<string, IssuedCode>();
  private server?: Server;
  issuer = '';
  /** Who signs in next; by default an iD of its own, so no other suite's account is signed in to. */
  nextIdentity: FakeIdentity = { sub: randomOrcid() };
  /** The next id_token carries this nonce instead of the one asked for. */
  forgeNonce?: string;
  /** Token requests answered, and why any was refused. */
  readonly tokenRequests: { ok: boolean; error?: string }[] = [];
  /** Authorize requests as received (their query parameters). */
  readonly authorizeRequests: Record<string, string>[] = [];

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The environment a registry needs to use this provider for ORCID sign-in. */
  get environment(): Record<string, string> {
    return { ORCID_ISSUER: this.issuer, ORCID_CLIENT_ID: this.clientId, ORCID_CLIENT_SECRET: this.clientSecret };
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return this.json(res, 200, {
        issuer: this.issuer,
        authorization_endpoint: `${this.issuer}/oauth/authorize`,
        token_endpoint: `${this.issuer}/oauth/token`,
        jwks_uri: `${this.issuer}/oauth/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (req.method === 'GET' && url.pathname === '/oauth/jwks') {
      const jwk = this.keys.publicKey.export({ format: 'jwk' });
      return this.json(res, 200, { keys: [{ ...jwk, kid: 'fake-1', use: 'sig', alg: 'RS256' }] });
    }
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') return this.authorizePage(url, res);
    if (req.method === 'POST' && url.pathname === '/oauth/decide') return this.decide(await formBody(req), res);
    if (req.method === 'POST' && url.pathname === '/oauth/token') return this.token(await formBody(req), res);
    res.statusCode = 404;
    res.end('not found');
  }

  private authorizePage(url: URL, res: ServerResponse): void {
    const query = Object.fromEntries(url.searchParams);
    this.authorizeRequests.push(query);
    if (query.client_id !== this.clientId || query.response_type !== 'code' || !query.redirect_uri) {
      res.statusCode = 400;
      res.end('bad authorization request');
      return;
    }
    const hidden = Object.entries(query)
      .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
      .join('');
    const who = [this.nextIdentity.given_name, this.nextIdentity.family_name].filter(Boolean).join(' ');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!DOCTYPE html><html lang="en"><head><title>Fake ORCID</title><link rel="icon" href="data:,"></head><body>
<h1>Fake ORCID</h1><p>Signed in as ${escape(who)} (${escape(this.nextIdentity.sub)}).</p>
<form method="post" action="/oauth/decide">${hidden}
<button type="submit" name="decision" value="authorize">Authorize</button>
<button type="submit" name="decision" value="deny">Deny</button></form></body></html>`);
  }

  private decide(form: URLSearchParams, res: ServerResponse): void {
    const redirect = new URL(form.get('redirect_uri') ?? '');
    if (form.get('state') !== null) redirect.searchParams.set('state', form.get('state') ?? '');
    if (form.get('decision') !== 'authorize') {
      redirect.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(12).toString('base64url');
      this.codes.set(code, {
        identity: this.nextIdentity,
        clientId: form.get('client_id') ?? '',
        redirectUri: form.get('redirect_uri') ?? '',
        nonce: form.get('nonce') ?? undefined,
        challenge: form.get('code_challenge_method') === 'S256' ? (form.get('code_challenge') ?? undefined) : undefined,
        used: false,
      });
      redirect.searchParams.set('code', code);
    }
    res.statusCode = 302;
    res.setHeader('Location', redirect.toString());
    res.end();
  }

  private token(form: URLSearchParams, res: ServerResponse): void {
    const refuse = (error: string) => {
      this.tokenRequests.push({ ok: false, error });
      this.json(res, 400, { error });
    };
    const issued = this.codes.get(form.get('code') ?? '');
    if (form.get('grant_type') !== 'authorization_code') return refuse('unsupported_grant_type');
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      return refuse('invalid_client');
    }
    if (!issued || issued.used) return refuse('invalid_grant');
    issued.used = true;
    if (issued.redirectUri !== form.get('redirect_uri') || issued.clientId !== this.clientId) {
      return refuse('invalid_grant');
    }
    const verifier = form.get('code_verifier') ?? '';
    if (!issued.challenge || createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) {
      return refuse('invalid_grant');
    }
    const nonce = this.forgeNonce ?? issued.nonce;
    this.forgeNonce = undefined;
    const idToken = jwt.sign({ ...issued.identity, ...(nonce ? { nonce } : {}) }, this.keys.privateKey, {
      algorithm: 'RS256',
      keyid: 'fake-1',
      issuer: this.issuer,
      audience: this.clientId,
      expiresIn: 600,
    });
    this.tokenRequests.push({ ok: true });
    this.json(res, 200, {
      access_token: randomBytes(16).toString('hex'),
      token_type: 'bearer',
      expires_in: 631138518,
      scope: 'openid',
      orcid: issued.identity.sub,
      id_token: idToken,
    });
  }
}
