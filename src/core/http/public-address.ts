import type { Request } from 'express';

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
  return `${req.protocol}://${req.host}`;
}
