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

/**
 * The path of the first key or string value in a parsed body or query for which `problem` says
 * something, with what it said; undefined when nothing is wrong.
 */
function firstProblem(
  value: unknown,
  problem: (text: string, isKey: boolean) => string | undefined,
): { path: string; message: string } | undefined {
  // Iterative: a body is depth-limited, but a query string or form body need not be.
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [current, at] = stack.pop() as [unknown, string];
    if (typeof current === 'string') {
      const message = problem(current, false);
      if (message) return { path: at || 'body', message };
    } else if (current !== null && typeof current === 'object' && !Buffer.isBuffer(current)) {
      const entries = Object.entries(current as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        // A key holding a NUL cannot be named as it was sent: the NUL would end up in the answer.
        const childPath = (at ? `${at}.${key}` : key).replaceAll(NUL, '\\u0000');
        const message = problem(key, true);
        if (message) return { path: childPath, message };
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}

const nulProblem = (text: string) => (text.includes(NUL) ? NUL_PROBLEM : undefined);

/** The path of the first string (or key) holding a NUL character in a parsed body or query, or undefined. */
export function pathOfNul(value: unknown): string | undefined {
  return firstProblem(value, nulProblem)?.path;
}

/**
 * Keys that name JavaScript's object machinery. No field of the registry is called so, and
 * `constructor` slipped through the unknown-field check (every object has one), so they are
 * refused like any unknown field, wherever they appear.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const UNKNOWN_FIELD = 'This field is not allowed.';

/** The first NUL character or prototype key in a parsed body, query or form, as a 400; undefined when none. */
export function hostileInputError(value: unknown): ApiError | undefined {
  const found = firstProblem(value, (text, isKey) =>
    isKey && PROTOTYPE_KEYS.has(text) ? UNKNOWN_FIELD : nulProblem(text),
  );
  return found && ApiError.invalidField(found.path, found.message);
}

/**
 * PostgreSQL cannot store a NUL character in text (it fails the statement, a 500), and no field of
 * the registry has a use for one: a request carrying one anywhere — the URL path, a query parameter,
 * a JSON or form body — is answered 400 naming where, before any route sees it. So is a key named
 * like JavaScript's prototype machinery (`constructor`, `__proto__`, `prototype`). Raw bodies (the
 * legacy XML endpoints) are left to their parser, which refuses the character as XML does.
 */
export function refuseNulCharacters(req: Request, _res: Response, next: NextFunction): void {
  if (/%00/i.test(req.path)) return next(ApiError.invalidField('path', NUL_PROBLEM));
  next(hostileInputError(req.query) ?? (Buffer.isBuffer(req.body) ? undefined : hostileInputError(req.body)));
}
