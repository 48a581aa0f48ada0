import { CanActivate, ExecutionContext, Injectable, SetMetadata, createParamDecorator } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { TokenService } from '../auth/token.service';
import { CsrfTokens } from './csrf';
import { clearCookie, readCookie } from './page-cookies';

/** Who may open a page: anyone, someone signed in, or a curator (staff or admin). */
export type PageAccess = 'anyone' | 'signed-in' | 'staff';
const PAGE_ACCESS = 'sr:page-access';
export const PageAccessFor = (access: PageAccess) => SetMetadata(PAGE_ACCESS, access);

export const CSRF_REFUSED =
  'This form did not come from this site, or it belongs to an earlier session. Reload the page and submit it again.';

/** What the guard established about the browser: its signed-in user and the form token of its session. */
export interface PageSession {
  user?: AuthenticatedUser;
  /** The CSRF token the pages' forms carry (of the session, or of the pre-session cookie; empty when neither). */
  csrf: string;
}

type PageRequest = Request & { pageSession?: PageSession };

/** Thrown for a page that needs a signed-in user: the filter answers with a redirect to sign in. */
export class SignInRequired extends Error {
  constructor(readonly next: string) {
    super('Sign-in required.');
  }
}

/** The signed-in user of a page the guard let through as `signed-in` or `staff`. */
export function signedInUser(session: PageSession): AuthenticatedUser {
  if (!session.user) throw new SignInRequired('/account/developer-settings');
  return session.user;
}

/** A page of this site to come back to after signing in; anything else (another host, `//x`) is the default. */
export function safeNext(value: unknown, fallback = '/account/developer-settings'): string {
  if (typeof value !== 'string' || value.length > 500) return fallback;
  return /^\/(account|staff)(\/[A-Za-z0-9._~\-/]*)?(\?[A-Za-z0-9._~\-=&%]*)?$/.test(value) && !value.includes('..')
    ? value
    : fallback;
}

/**
 * The account pages' one gate. It reads the browser session cookie — never on a URL under /api/,
 * where only bearer tokens count (the pages are served there internally, behind a rewrite) — and
 * checks the page's access and, on every POST, the form's CSRF token: a session's forms carry the
 * token of that session, the sign-in form the token of the pre-session cookie. A cookie that no
 * longer stands for a session is cleared.
 */
@Injectable()
export class AccountPageGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokenService: TokenService,
    private readonly csrf: CsrfTokens,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<PageRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const session = await this.read(req, res);
    req.pageSession = session;
    const access =
      this.reflector.getAllAndOverride<PageAccess | undefined>(PAGE_ACCESS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'anyone';
    if (access !== 'anyone' && !session.user) {
      throw new SignInRequired(req.method === 'GET' ? safeNext(req.originalUrl) : '/account/developer-settings');
    }
    if (access === 'staff' && !(session.user?.isStaff || session.user?.isAdmin)) {
      throw ApiError.forbidden('This page is for curators (staff).');
    }
    if (req.method === 'POST') {
      const token = (req.body as { csrf?: unknown } | undefined)?.csrf;
      if (!session.csrf || !this.csrf.matches(this.binding(req, session) ?? '', token)) {
        throw ApiError.forbidden(CSRF_REFUSED);
      }
    }
    return true;
  }

  private binding(req: Request, session: PageSession): string | undefined {
    if (session.user) return `session:${session.user.tokenPairId}`;
    const pre = readCookie(req, 'preSession', this.config.auth.sessionCookieSecure);
    return pre ? `pre:${pre}` : undefined;
  }

  private async read(req: Request, res: Response): Promise<PageSession> {
    const secure = this.config.auth.sessionCookieSecure;
    const viaApi = /^\/api(\/|$)/i.test(req.originalUrl);
    const token = viaApi ? undefined : readCookie(req, 'session', secure);
    const user = token ? await this.tokenService.authenticateBrowserSession(token) : undefined;
    if (token && !user) clearCookie(res, 'session', secure);
    const session: PageSession = { user, csrf: '' };
    const binding = viaApi ? undefined : this.binding(req, session);
    return { user, csrf: binding ? this.csrf.tokenFor(binding) : '' };
  }
}

/** The page session the guard established. */
export const CurrentPageSession = createParamDecorator(
  (_data: unknown, context: ExecutionContext): PageSession =>
    context.switchToHttp().getRequest<PageRequest>().pageSession ?? { csrf: '' },
);
