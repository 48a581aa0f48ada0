import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error';

/**
 * Deepest nesting of objects and arrays a JSON body may have. No request of the API needs more
 * than a handful of levels; the validators, class-transformer and the logger all recurse, so a
 * body nested thousands deep would overflow the stack (a 500) long after it was parsed.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** body-parser's failure type for a too deeply nested body (see bodyParserError). */
export const JSON_TOO_DEEP = 'entity.too.deep';

/**
 * How deeply the JSON text in `bytes` nests, counted in one pass over the bytes without parsing
 * (brackets inside strings do not count), stopping as soon as `limit` is exceeded.
 */
export function jsonNestingExceeds(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** body-parser `verify` hook: refuses a JSON body nested deeper than MAX_JSON_DEPTH before it is parsed. */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer): void {
  if (jsonNestingExceeds(body, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), {
      type: JSON_TOO_DEEP,
      status: 400,
    });
  }
}

const NUL = '\u0000';
export const NUL_PROBLEM = 'must not contain a NUL character';

/** The path of the first string (or key) holding a NUL character in a parsed body or query, or undefined. */
export function pathOfNul(value: unknown, path = ''): string | undefined {
  // Iterative: a body is depth-limited, but a query string or form body need not be.
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length) {
    const [current, at] = stack.pop() as [unknown, string];
    if (typeof current === 'string') {
      if (current.includes(NUL)) return at || 'body';
    } else if (current !== null && typeof current === 'object' && !Buffer.isBuffer(current)) {
      const entries = Object.entries(current as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        const childPath = at ? `${at}.${key}` : key;
        // A key cannot be named as it was sent: the NUL would end up in the answer.
        if (key.includes(NUL)) return childPath.replaceAll(NUL, '\\u0000');
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/**
 * PostgreSQL cannot store a NUL character in text (it fails the statement, a 500), and no field of
 * the registry has a use for one: a request carrying one anywhere — the URL path, a query parameter,
 * a JSON or form body — is answered 400 naming where, before any route sees it. Raw bodies (the
 * legacy XML endpoints) are left to their parser, which refuses the character as XML does.
 */
export function refuseNulCharacters(req: Request, _res: Response, next: NextFunction): void {
  if (/%00/i.test(req.path)) return next(ApiError.invalidField('path', NUL_PROBLEM));
  const field = pathOfNul(req.query) ?? (Buffer.isBuffer(req.body) ? undefined : pathOfNul(req.body));
  next(field === undefined ? undefined : ApiError.invalidField(field, NUL_PROBLEM));
}
