import { PageViewer, fieldErrorList, renderPage, text } from './layout';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  401: 'Sign-in needed',
  403: 'Not allowed',
  404: 'Page not found',
  409: 'That cannot be done now',
  429: 'Too many attempts',
  503: 'Try again shortly',
};

/** An error page in the pages' style: what went wrong, in the words of the JSON API's message. */
export function renderErrorPage(
  status: number,
  message: string,
  errors: Record<string, string[]>,
  viewer: PageViewer,
): string {
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong on our side' : 'That did not work');
  const back = viewer.user
    ? '<p><a href="/account/developer-settings">Developer settings</a> · <a href="/account/requests">My requests</a></p>'
    : '<p><a href="/account/sign-in">Sign in</a></p>';
  return renderPage({
    title,
    viewer,
    flash: { kind: 'error', html: `<p>${text(message)}</p>${fieldErrorList(errors)}` },
    body: `<p class="muted">Error ${status}. Go back and try again, or:</p>${back}`,
  });
}
