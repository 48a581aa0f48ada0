import { createHash } from 'node:crypto';
import { ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';

/**
 * Who may keep a copy of a read:
 * - `shared`: anyone may read it (anonymous caller, public record): browsers and proxies keep it
 *   for `max-age` seconds;
 * - `private`: the caller may read it but it says something about them (e.g. `can_edit`): only
 *   their own client keeps it, and revalidates with `If-None-Match` every time;
 * - `none`: not public at all: nobody stores it.
 */
export type CacheAudience = 'shared' | 'private' | 'none';

/**
 * A strong entity tag from the values that decide a representation (ids, update times, format,
 * the caller's permissions…): equal parts, byte-identical body. Hashed so the tag says nothing
 * about the parts.
 */
export function strongEtag(parts: readonly (string | number | boolean | null | undefined)[]): string {
  // One string, hashed once: the same digest as hashing the parts one by one, without a native call per part.
  let text = '';
  for (const part of parts) text += `${part === null || part === undefined ? '\u0000' : String(part)}\u001f`;
  return `"${createHash('sha1').update(text).digest('base64url')}"`;
}

/**
 * Sets a read's validator and caching headers and answers whether the caller's copy is still
 * current. When it is, the handler returns no body and Express answers `304 Not Modified` (it checks
 * `If-None-Match` against the `ETag` set here), so the representation is never built.
 *
 * `Vary: Authorization` because the same URL answers differently with a token (scope, `can_edit`).
 * Express's own body-hashing ETag is off (configure-http-app): tags come only from here.
 */
export function cacheRead(
  req: Request,
  res: Response,
  etag: string,
  audience: CacheAudience,
  maxAgeSeconds: number,
): boolean {
  res.vary('Authorization');
  res.setHeader('Cache-Control', cacheControl(audience, maxAgeSeconds));
  if (audience === 'none') return false;
  res.setHeader('ETag', etag);
  return req.fresh;
}

export function cacheControl(audience: CacheAudience, maxAgeSeconds: number): string {
  switch (audience) {
    case 'shared':
      return `public, max-age=${maxAgeSeconds}`;
    case 'private':
      return 'private, no-cache';
    case 'none':
      return 'private, no-store';
  }
}

/** Documents the `304` a cached read answers to a current `If-None-Match`. */
export const ApiNotModifiedResponse = () =>
  ApiResponse({
    status: 304,
    description:
      'Not modified: `If-None-Match` named the current `ETag`. No body. Anonymous reads of public records are ' +
      '`Cache-Control: public, max-age=…`; with a token `private, no-cache`; records that are not public `private, no-store`.',
  });
