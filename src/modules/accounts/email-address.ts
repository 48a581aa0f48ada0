/**
 * How an email address someone signs in with is compared with an account's: the one rule for
 * login, the OpenID Connect exchange and the rate limit on both.
 *
 * Two addresses are the same account when their keys are equal: trimmed, Unicode NFC, then
 * lower-cased by Unicode's locale-independent full mapping (String.prototype.toLowerCase). The
 * database's case-insensitive comparison (citext, lower() under the database's locale) only finds
 * the candidate row; it folds more than this (`tİm` equals `tim` there, while Unicode lower-cases
 * `İ` to `i̇`, an i with a combining dot), so the candidate must also have the same key.
 */
export function emailKey(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

/** Letters that have no decomposition but are look-alikes of an ASCII letter after lower-casing. */
const LOOK_ALIKES: Record<string, string> = { ı: 'i', ĸ: 'k', ȷ: 'j' };

/**
 * The rate-limit bucket of an address: coarser than emailKey (equal keys always share a bucket),
 * so spelling an address with other case variants or combining marks (`tİm@x.org`, `TIM@X.ORG`,
 * `tím@x.org`) never earns a fresh budget of guesses against `tim@x.org`: compatibility
 * decomposition, combining marks dropped, look-alike letters mapped to ASCII.
 */
export function emailBucket(email: string): string {
  return emailKey(email)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[ıĸȷ]/g, (letter) => LOOK_ALIKES[letter])
    .toLowerCase();
}
