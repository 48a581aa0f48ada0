/**
 * Escaping for server-rendered HTML. Every value that comes from a sample goes through `text` (or
 * `attribute`), links only through `safeHref`, and embedded JSON through `scriptJson`: there is no
 * other way into the page, so no sample field can add markup or script.
 */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** An http(s) URL to put in `href`, or null (javascript:, data: and anything unparseable are text only). */
export function safeHref(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * JSON for a `<script type="application/ld+json">` block: `<`, `>` and `&` as unicode escapes, so
 * `</script>` or `<!--` inside a value cannot end the block; U+2028/2029 escaped for old parsers.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
