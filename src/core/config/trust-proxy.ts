import { isIP } from 'node:net';

/**
 * Which proxies in front of the API are believed about the client (X-Forwarded-For/Proto/Host):
 * none (`false`), the nearest N hops, or the proxies at these addresses/ranges — Express's own
 * `trust proxy` forms, never "every hop" (a client could then choose its own address).
 */
export type TrustProxy = false | { hops: number } | { addresses: string[] };

/** Express's named ranges (proxy-addr). */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function validAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(prefix) === 4; // a netmask: 10.0.0.0/255.0.0.0
}

/**
 * TRUST_PROXY's value: `false` (or unset), a hop count (`1`: the one proxy in front), or a
 * comma-separated list of proxy addresses, CIDR ranges and the names loopback, linklocal,
 * uniquelocal. `true` once meant "trust every hop"; it is read as 1 hop and `warning` says so.
 * Throws with the problem for anything else.
 */
export function parseTrustProxy(value: string): { setting: TrustProxy; warning?: string } {
  const text = value.trim().toLowerCase();
  if (['false', 'no', 'off', '0', ''].includes(text)) return { setting: false };
  if (['true', 'yes', 'on'].includes(text)) {
    return {
      setting: { hops: 1 },
      warning:
        'TRUST_PROXY=true is read as 1 hop (the nearest proxy only): trusting every hop would let a client ' +
        'choose its own address. Set a hop count or the proxies’ addresses to silence this warning.',
    };
  }
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) throw new Error(`must be at most 32 hops, got ${hops}.`);
    return { setting: { hops } };
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !validAddressOrRange(entry));
  if (bad !== undefined) {
    throw new Error(
      `must be false, a hop count, or a comma-separated list of proxy addresses, CIDR ranges, loopback, ` +
        `linklocal or uniquelocal; "${bad}" is none of these.`,
    );
  }
  return { setting: { addresses: entries } };
}

/** The value for Express's `trust proxy` setting. */
export function expressTrustProxy(setting: TrustProxy): false | number | string[] {
  if (setting === false) return false;
  return 'hops' in setting ? setting.hops : setting.addresses;
}
