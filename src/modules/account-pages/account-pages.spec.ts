import { CsrfTokens } from './csrf';
import { cookieName, cookieOptions, parseCookies } from './page-cookies';
import { safeNext } from './page-session';
import { inWords, renderDeveloperSettings } from './views/developer-settings.view';
import { renderErrorPage } from './views/error.view';
import { renderRequests } from './views/requests.view';

describe('account pages', () => {
  it('binds CSRF tokens to what they were made for, under the secret', () => {
    const tokens = new CsrfTokens('x'.repeat(32));
    const token = tokens.tokenFor('session:abc');
    expect(tokens.matches('session:abc', token)).toBe(true);
    expect(tokens.matches('session:abd', token)).toBe(false);
    expect(tokens.matches('session:abc', `${token}x`)).toBe(false);
    expect(tokens.matches('session:abc', undefined)).toBe(false);
    expect(tokens.matches('session:abc', ['a'])).toBe(false);
    expect(new CsrfTokens('y'.repeat(32)).matches('session:abc', token)).toBe(false);
  });

  it('reads cookies leniently and names them __Host- when Secure', () => {
    expect(parseCookies('a=1; sr_session=x%3Dy; a=2; broken; q="quoted"')).toEqual(
      new Map([
        ['a', '1'],
        ['sr_session', 'x=y'],
        ['q', 'quoted'],
      ]),
    );
    expect(parseCookies('bad=%E0%A4%A')).toEqual(new Map([['bad', '%E0%A4%A']]));
    expect(parseCookies(undefined).size).toBe(0);
    expect(cookieName('session', true)).toBe('__Host-sr_session');
    expect(cookieName('session', false)).toBe('sr_session');
    expect(cookieOptions(true, 1000)).toEqual({
      httpOnly: true,
      secure: true,
      sameSite: 'lax',
      path: '/',
      maxAge: 1000,
    });
  });

  it('comes back only to a page of the account pages after signing in', () => {
    expect(safeNext('/account/requests')).toBe('/account/requests');
    expect(safeNext('/staff/requests?done=approved')).toBe('/staff/requests?done=approved');
    for (const bad of ['https://evil.example', '//evil.example', '/api/users/me/', '/account/../api/x', '/\\evil', 7]) {
      expect(safeNext(bad)).toBe('/account/developer-settings');
    }
  });

  it('says durations in words', () => {
    expect(inWords(86400)).toBe('1 day');
    expect(inWords(365 * 86400)).toBe('365 days');
    expect(inWords(3600)).toBe('1 hour');
    expect(inWords(90)).toBe('90 seconds');
  });

  it('escapes every value a person or curator wrote', () => {
    const evil = '<script>alert(1)</script>';
    const viewer = { csrf: '"><script>', user: { isStaff: true, isAdmin: false, name: evil } };
    const requests = renderRequests({
      viewer,
      uploadPermission: false,
      managedTeams: [evil],
      requests: [
        {
          id: 1,
          kind: 'registry_code',
          status: 'refused',
          reason: evil,
          code: 'IEABC',
          team: { id: 1, name: evil },
          requester: { id: 1, name: evil, email: null, orcid: null },
          created_at: '2026-11-22T10:00:00.000Z',
          decided_at: '2026-11-22T11:00:00.000Z',
          decided_by: evil,
          decision_message: evil,
        },
      ],
    });
    const settings = renderDeveloperSettings({
      viewer,
      account: { name: evil, email: evil, orcid: null, uploadPermission: true },
      orcidEnabled: true,
      maxPairs: 5,
      lifetimes: { access: '1 day', refresh: '365 days' },
      developerPairs: [],
      sessions: [
        {
          id: 'x',
          kind: 'connection',
          connection: evil,
          origin: null,
          createdAt: new Date(),
          expiresAt: new Date(),
          lastUsedAt: null,
          current: false,
        },
      ],
    });
    const error = renderErrorPage(400, evil, { [evil]: [evil] }, viewer);
    for (const html of [requests, settings, error]) {
      expect(html).not.toContain('<script>');
      expect(html).toContain('&lt;script&gt;');
    }
  });
});
