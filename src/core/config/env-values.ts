/**
 * Typed values read from the environment (integers, booleans, sizes, durations, URLs, addresses):
 * each reader names the variable in the ConfigError it throws. Blank counts as unset.
 */

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export function required(env: Env, name: string, hint: string): string {
  const value = raw(env, name);
  if (value === undefined) throw new ConfigError(name, `is required (${hint}).`);
  return value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value)) throw new ConfigError(name, `must be an integer, got "${value}".`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${parsed}.`);
  return parsed;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new ConfigError(name, `must be true or false, got "${value}".`);
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const match = allowed.find((candidate) => candidate === value.toLowerCase());
  if (!match) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${value}".`);
  return match;
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Parses `1048576`, `512kb`, `10mb`, `1gb` into bytes. */
export function parseByteSize(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  if (!match) return undefined;
  const bytes = Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

export function byteSize(env: Env, name: string, fallback: string): number {
  const value = raw(env, name) ?? fallback;
  const bytes = parseByteSize(value);
  if (bytes === undefined)
    throw new ConfigError(name, `must be a size such as 1048576, 512kb or 10mb, got "${value}".`);
  return bytes;
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `3600`, `90s`, `15m`, `1h`, `365d` into seconds. */
export function parseDurationSeconds(value: string): number | undefined {
  const match = /^(\d+)\s*(s|m|h|d)?$/i.exec(value.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * DURATION_UNITS[(match[2] ?? 's').toLowerCase()];
  return seconds > 0 ? seconds : undefined;
}

export function duration(env: Env, name: string, fallback: string): number {
  const value = raw(env, name) ?? fallback;
  const seconds = parseDurationSeconds(value);
  if (seconds === undefined)
    throw new ConfigError(name, `must be a duration such as 3600, 15m, 1h or 365d, got "${value}".`);
  return seconds;
}

export function url(env: Env, name: string, protocols: string[], hint: string): string {
  const value = required(env, name, hint);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, `must be a URL (${hint}).`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')} (${hint}).`);
  }
  return value;
}

/** A comma-separated list of URLs (blank entries ignored); unset or empty: none. */
export function urlList(env: Env, name: string, protocols: string[], hint: string): string[] {
  const entries = (raw(env, name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.map((entry) => url({ [name]: entry }, name, protocols, hint));
}

/** An e-mail address of the form OAI-PMH's schema demands (`local@host.domain`). */
export function email(env: Env, name: string, fallback: string): string {
  const value = raw(env, name) ?? fallback;
  if (!/^\S+@(\S+\.)+\S+$/.test(value)) throw new ConfigError(name, `must be an e-mail address, got "${value}".`);
  return value;
}
