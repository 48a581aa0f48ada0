import { KeyObject, createSecretKey } from 'node:crypto';

export const TOKEN_ALGORITHM = 'HS256';
export const TOKEN_ISSUER = 'sample-registry';

const imported = new Map<string, KeyObject>();

/**
 * The HMAC key of JWT_SECRET as a KeyObject, imported once per process. Given the secret as a
 * string, jsonwebtoken imports it again on every sign and verify (first trying it as a public key,
 * through a thrown exception): ~10 % of an authenticated request's CPU.
 */
export function jwtSigningKey(secret: string): KeyObject {
  let key = imported.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    imported.set(secret, key);
  }
  return key;
}
