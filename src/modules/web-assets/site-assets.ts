import { createHash } from 'node:crypto';

/**
 * The one stylesheet of the public pages (sample landing pages and account pages) and the account
 * pages' one script, served from /assets/ so no page's Content-Security-Policy allows inline styles. Colours meet WCAG AA contrast on white (text
 * 15.3:1, muted 7:1, links and buttons 8.6:1, errors 7.1:1); focus is always visible; touch
 * targets are at least 44 px high.
 */
export const SITE_STYLESHEET = `:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; background: #fff; }
header, main, footer { max-width: 50rem; margin: 0 auto; padding: 0 1rem; }
header { padding-top: 1rem; color: #4a4a4a; font-size: .95rem; }
h1 { font-size: 1.75rem; line-height: 1.2; margin: .5rem 0 .75rem; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid #d0d0d0; padding-bottom: .25rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .25rem; }
a { color: #0b4f9c; text-decoration-thickness: .08em; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid #0b4f9c; outline-offset: 2px; }
.identifier { font-size: 1.05rem; overflow-wrap: anywhere; }
.muted { color: #4a4a4a; }
dl { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .4rem 1rem; margin: 0; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 32rem) { dl { grid-template-columns: 1fr; } dd { margin-bottom: .5rem; } }
.citation { background: #f3f4f6; border-left: 4px solid #0b4f9c; padding: .75rem 1rem; margin: 0; overflow-wrap: anywhere; }
button, .button { display: inline-block; font: inherit; line-height: 1.3; margin-top: .5rem; padding: .6rem 1rem; border: 1px solid #0b4f9c; border-radius: .25rem; background: #0b4f9c; color: #fff; cursor: pointer; min-height: 44px; text-decoration: none; }
button.secondary, .button.secondary { background: #fff; color: #0b4f9c; }
button.danger { background: #fff; color: #a4161a; border-color: #a4161a; }
ul { padding-left: 1.25rem; }
li { margin: .25rem 0; overflow-wrap: anywhere; }
footer { margin-top: 3rem; padding-bottom: 2rem; color: #4a4a4a; font-size: .9rem; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .5rem; }
nav ul { list-style: none; padding: 0; margin: .25rem 0 0; display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; align-items: center; }
nav li { margin: 0; }
nav form { margin: 0; }
nav button { margin: 0; padding: .25rem .5rem; min-height: 44px; background: none; color: #0b4f9c; border: none; text-decoration: underline; }
nav [aria-current="page"] { font-weight: 600; color: #1a1a1a; }
.brand { font-weight: 600; color: #1a1a1a; }
form.stacked { display: grid; gap: .35rem; max-width: 32rem; }
form.stacked label { margin-top: .5rem; }
.request form { margin-top: .75rem; }
label { font-weight: 600; }
.hint { color: #4a4a4a; font-size: .92rem; margin: 0 0 .25rem; }
input[type="email"], input[type="password"], input[type="text"], select, textarea { font: inherit; padding: .5rem .6rem; border: 1px solid #6b6b6b; border-radius: .25rem; width: 100%; min-height: 44px; }
textarea { min-height: 6rem; resize: vertical; }
fieldset { border: 1px solid #d0d0d0; border-radius: .25rem; padding: .5rem 1rem 1rem; margin: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
.inline { display: inline; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; vertical-align: top; padding: .5rem .5rem .5rem 0; border-bottom: 1px solid #d0d0d0; overflow-wrap: anywhere; }
th { font-weight: 600; }
td button { margin-top: 0; }
@media (max-width: 40rem) {
  table.cards thead { position: absolute; left: -999px; }
  table.cards tr { display: block; border-bottom: 1px solid #d0d0d0; padding: .5rem 0; }
  table.cards td { display: block; border: none; padding: .15rem 0; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
}
.notice, .warning, .error { padding: .75rem 1rem; margin: 1rem 0; border-left: 4px solid; }
.notice { background: #eef6ee; border-color: #1e6b2f; }
.warning { background: #fff6e0; border-color: #8a5a00; }
.error { background: #fdecec; border-color: #a4161a; }
.error ul { margin: .25rem 0 0; }
.token { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; background: #f3f4f6; padding: .5rem; margin: .25rem 0; overflow-wrap: anywhere; word-break: break-all; user-select: all; }
.status { font-weight: 600; }
.status-approved { color: #1e6b2f; }
.status-refused { color: #a4161a; }
.status-pending { color: #8a5a00; }
.request { border: 1px solid #d0d0d0; border-radius: .25rem; padding: .5rem 1rem 1rem; margin: 1rem 0; }
.request h3 { margin-top: .5rem; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; }
`;

/**
 * Progressive enhancement only: the copy buttons beside tokens (hidden until this runs; the tokens
 * stay selectable without it).
 */
export const SITE_SCRIPT = `(function () {
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var source = document.getElementById(button.getAttribute('data-copy'));
      var status = document.getElementById(button.getAttribute('data-status'));
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        status.textContent = 'Copied.';
      }, function () {
        status.textContent = 'Select the text and copy it.';
      });
    });
  });
})();
`;

function version(content: string): string {
  return createHash('sha256').update(content).digest('base64url').slice(0, 12);
}

/** Content-addressed paths: a new stylesheet or script is a new URL, so both may be cached for a year. */
export const STYLESHEET_PATH = `/assets/site-${version(SITE_STYLESHEET)}.css`;
export const SCRIPT_PATH = `/assets/site-${version(SITE_SCRIPT)}.js`;

/** The account pages' Content-Security-Policy: their own stylesheet, script and forms, nothing else. */
export const ACCOUNT_PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');
