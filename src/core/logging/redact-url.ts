/**
 * Query parameters whose values are secrets (tokens, passwords, keys…): a token put in a URL must
 * not land in the logs. Matched anywhere in the parameter name, case-insensitively.
 */
const SECRET_NAME = /token|access|refresh|password|passwd|secret|key|signature|auth|session|jwt|credential/i;

/** The URL as logged: path kept, secret query values replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const params = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is judged as written.
      }
      return equals >= 0 && SECRET_NAME.test(name) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, queryAt)}?${params.join('&')}`;
}
