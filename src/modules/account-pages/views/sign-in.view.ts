import { PageViewer, csrfField, renderPage, text } from './layout';

export interface SignInView {
  viewer: PageViewer;
  orcidEnabled: boolean;
  /** Where to go after signing in (a page of this site). */
  next: string;
  email?: string;
  error?: string;
}

/** `/account/sign-in`: ORCID first (it creates the account), email and password for accounts that have one. */
export function renderSignIn(view: SignInView): string {
  const nextQuery = `?next=${encodeURIComponent(view.next)}`;
  const orcid = view.orcidEnabled
    ? `<section aria-labelledby="orcid-heading">
<h2 id="orcid-heading">With your ORCID iD</h2>
<p>Signing in with ORCID for the first time creates your registry account, linked to your ORCID iD.</p>
<p><a class="button" href="/account/sign-in/orcid${text(nextQuery)}">Sign in with ORCID</a></p>
</section>`
    : '';
  const password = `<section aria-labelledby="password-heading">
<h2 id="password-heading">With email and password</h2>
<p class="muted">For accounts a registry administrator created with a password.</p>
<form method="post" action="/account/sign-in${text(nextQuery)}" class="stacked">
${csrfField(view.viewer.csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="255" value="${text(view.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<div><button type="submit">Sign in</button></div>
</form>
</section>`;
  return renderPage({
    title: 'Sign in',
    viewer: view.viewer,
    path: '/account/sign-in',
    flash: view.error ? { kind: 'error', html: `<p>${text(view.error)}</p>` } : undefined,
    body: `<p>Sign in to generate API tokens, ask for upload permission or a registry code, and see what curators decided.</p>
${orcid}
${password}`,
  });
}

/** `GET /account/sign-out`: a button, since signing out changes state (a link could be followed by anyone). */
export function renderSignOut(viewer: PageViewer): string {
  return renderPage({
    title: 'Sign out',
    viewer,
    body: `<p>Sign out of this browser? Your developer tokens keep working; revoke them on the developer settings page.</p>
<form method="post" action="/account/sign-out">${csrfField(viewer.csrf)}<button type="submit">Sign out</button></form>`,
  });
}
