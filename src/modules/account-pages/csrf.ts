import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of the account pages' forms: an HMAC, under a key derived from JWT_SECRET, of what the
 * form belongs to — the browser session's pair id once signed in, the pre-session cookie's random
 * value before. Another site can neither read the token (same-origin policy) nor compute it (the
 * key), and a token of one session is worthless in another. Nothing is stored.
 */
export class CsrfTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('sample-registry account-pages csrf v1').digest();
  }

  tokenFor(binding: string): string {
    return createHmac('sha256', this.key).update(binding).digest('base64url');
  }

  matches(binding: string, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(this.tokenFor(binding));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
