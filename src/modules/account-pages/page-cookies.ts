import type { CookieOptions, Request, Response } from 'express';

/**
 * The account pages' cookies. All HttpOnly and SameSite=Lax (sent on the top-level navigation back
 * from ORCID, never with a cross-site form post or fetch). When Secure (SESSION_COOKIE_SECURE,
 * default outside tests) their names carry the `__Host-` prefix, so the browser keeps them only if
 * they were set over HTTPS, for this host, for every path.
 */
export const COOKIES = {
  /** The browser session: a token TokenService.issueBrowserSession signed. */
  session: 'sr_session',
  /** Before sign-in: what the sign-in form's CSRF token is bound to. */
  preSession: 'sr_presession',
  /** Between leaving for ORCID and coming back: OrcidSignInService's flow token. */
  orcidFlow: 'sr_orcid_flow',
} as const;
export type CookieName = keyof typeof COOKIES;

export function cookieName(name: CookieName, secure: boolean): string {
  return secure ? `__Host-${COOKIES[name]}` : COOKIES[name];
}

export function cookieOptions(secure: boolean, maxAgeMs?: number): CookieOptions {
  return {
    httpOnly: true,
    secure,
    sameSite: 'lax',
    path: '/',
    ...(maxAgeMs === undefined ? {} : { maxAge: Math.max(0, maxAgeMs) }),
  };
}

/** The request's cookies by name (the first of a repeated name); values are URL-decoded when they can be. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header || header.length > 8192) return cookies;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    let value = part.slice(at + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // kept as sent
    }
    if (name && !cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

export function readCookie(req: Request, name: CookieName, secure: boolean): string | undefined {
  return parseCookies(req.headers.cookie).get(cookieName(name, secure));
}

export function setCookie(res: Response, name: CookieName, value: string, secure: boolean, maxAgeMs: number): void {
  res.cookie(cookieName(name, secure), value, cookieOptions(secure, maxAgeMs));
}

export function clearCookie(res: Response, name: CookieName, secure: boolean): void {
  res.clearCookie(cookieName(name, secure), cookieOptions(secure));
}
