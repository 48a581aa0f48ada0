import type { Request } from 'express';
import { ApiError } from './api-error';

/** The Express app setting that holds PUBLIC_URL, for code that has a request but no config (pagination). */
export const PUBLIC_URL_SETTING = 'registry public url';

/** A host name or address with an optional port: what a request's origin may be built from. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The registry's public base URL (`https://registry.example.org`, no trailing slash): the one
 * source of every absolute address of a public page — the DataCite `url`, a landing page's
 * canonical link and JSON-LD `url`, `?format=jsonld`, the sitemap. PUBLIC_URL when it is set.
 * Unset, an answer to a request uses the origin that request came to (its Host, or
 * X-Forwarded-Proto/Host under TRUST_PROXY). A record made without a request (the worker's
 * DataCite delivery) has no such fallback: registration does not start without PUBLIC_URL.
 */
export function publicBaseUrl(publicUrl: string | null, req?: Request): string {
  if (publicUrl !== null) return publicUrl.replace(/\/+$/, '');
  if (!req) throw new Error('PUBLIC_URL is not set: a public address cannot be made without a request.');
  let origin = origins.get(req);
  if (origin !== undefined) return origin;
  // Express works req.host and req.protocol out again (trust proxy, forwarded headers) on each read.
  const host = req.host;
  // A Host that is not a host name (`a b`) cannot start a URL: the client's mistake, so a 400.
  if (!host || !HOST.test(host)) {
    throw ApiError.badRequest('The Host header is not a valid host name.', {
      Host: ['must be a host name or address, with an optional port'],
    });
  }
  origin = `${req.protocol}://${host}`;
  origins.set(req, origin);
  return origin;
}

/** Each request's origin once worked out (a fetch asks for it for the ETag and again for the body). */
const origins = new WeakMap<Request, string>();

/** publicBaseUrl for code that has only the request: PUBLIC_URL as configureHttpApp stored it, else the request's origin. */
export function requestPublicBaseUrl(req: Request): string {
  const publicUrl = req.app.get(PUBLIC_URL_SETTING) as string | null | undefined;
  return publicBaseUrl(publicUrl ?? null, req);
}
