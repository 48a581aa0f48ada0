import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { escapeHtml as text } from '../../landing-pages/html';
import { SCRIPT_PATH, STYLESHEET_PATH } from '../../web-assets/site-assets';

export { text };

/** Who the page is for: the signed-in user (and the CSRF token of their session), or nobody. */
export interface PageViewer {
  user?: Pick<AuthenticatedUser, 'isStaff' | 'isAdmin'> & { name?: string };
  csrf: string;
}

export interface PageParts {
  title: string;
  viewer: PageViewer;
  /** The path of this page, to mark it current in the navigation. */
  path?: string;
  body: string;
  /** One line of news above the page (a notice, a warning, an error). */
  flash?: { kind: 'notice' | 'warning' | 'error'; html: string };
  /** Whether the page uses the copy buttons (loads the one script). */
  script?: boolean;
}

export const SITE_NAME = 'Sample Registry';

/** The hidden field every form carries. */
export function csrfField(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${text(csrf)}">`;
}

/** A form that is only a button (revoke, sign out): POST with the CSRF token. */
export function buttonForm(
  action: string,
  csrf: string,
  label: string,
  options: { danger?: boolean; describedBy?: string } = {},
): string {
  const classes = options.danger ? ' class="danger"' : '';
  const describedBy = options.describedBy ? ` aria-describedby="${text(options.describedBy)}"` : '';
  return `<form method="post" action="${text(action)}" class="inline">${csrfField(csrf)}<button type="submit"${classes}${describedBy}>${text(label)}</button></form>`;
}

/** `2026-11-22 10:05 UTC` inside a `<time>`. */
export function when(date: string | Date | null | undefined, fallback = '—'): string {
  if (!date) return text(fallback);
  const iso = typeof date === 'string' ? date : date.toISOString();
  return `<time datetime="${text(iso)}">${text(iso.slice(0, 16).replace('T', ' '))} UTC</time>`;
}

function navigation(viewer: PageViewer, path: string | undefined): string {
  const link = (href: string, label: string) =>
    `<li><a href="${href}"${href === path ? ' aria-current="page"' : ''}>${text(label)}</a></li>`;
  if (!viewer.user) {
    return `<nav aria-label="Account"><ul><li class="brand">${SITE_NAME}</li>${link('/account/sign-in', 'Sign in')}</ul></nav>`;
  }
  const staff = viewer.user.isStaff || viewer.user.isAdmin ? link('/staff/requests', 'Requests to decide') : '';
  return `<nav aria-label="Account"><ul>
<li class="brand">${SITE_NAME}</li>
${link('/account/developer-settings', 'Developer settings')}
${link('/account/requests', 'My requests')}
${staff}
${viewer.user.name ? `<li><span class="muted">Signed in as ${text(viewer.user.name)}</span></li>` : ''}
<li><form method="post" action="/account/sign-out">${csrfField(viewer.csrf)}<button type="submit">Sign out</button></form></li>
</ul></nav>`;
}

/** The page shell: one stylesheet, skip link, navigation, a heading, and the script only when needed. */
export function renderPage(parts: PageParts): string {
  const flash = parts.flash
    ? `<div class="${parts.flash.kind}" role="${parts.flash.kind === 'error' ? 'alert' : 'status'}">${parts.flash.html}</div>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${text(parts.title)} · ${SITE_NAME}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header>
${navigation(parts.viewer, parts.path)}
</header>
<main id="main">
<h1>${text(parts.title)}</h1>
${flash}
${parts.body}
</main>
<footer>${SITE_NAME} · <a href="/api/docs">API documentation</a></footer>
${parts.script ? `<script src="${SCRIPT_PATH}"></script>` : ''}
</body>
</html>
`;
}

/** Field messages as a list under an error line (`reason: should not be empty`). */
export function fieldErrorList(errors: Record<string, string[]>): string {
  const items = Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((message) => `<li>${text(field)}: ${text(message)}</li>`),
  );
  return items.length ? `<ul>${items.join('')}</ul>` : '';
}
