import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { HttpExceptionFilter } from '../../core/http/http-exception.filter';
import { seeOther, sendPage } from './page-response';
import { PageSession, SignInRequired } from './page-session';
import { renderErrorPage } from './views/error.view';

/**
 * Failures on the account pages as pages: the status and message the JSON API would give (one
 * resolution, HttpExceptionFilter's, which also logs what is unexpected), in the pages' style. A
 * page that needs a signed-in user redirects to the sign-in page instead, coming back afterwards.
 */
@Catch()
export class AccountPageExceptionFilter implements ExceptionFilter {
  private readonly errors = new HttpExceptionFilter();

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request & { pageSession?: PageSession }>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    if (exception instanceof SignInRequired) {
      seeOther(res, `/account/sign-in?next=${encodeURIComponent(exception.next)}`);
      return;
    }
    const resolved = this.errors.resolve(exception);
    for (const [name, value] of Object.entries(resolved.headers ?? {})) {
      // A page is not a bearer-token API: no WWW-Authenticate challenge.
      if (name.toLowerCase() !== 'www-authenticate') res.setHeader(name, value);
    }
    const session = req.pageSession ?? { csrf: '' };
    const viewer = {
      csrf: session.csrf,
      user: session.user ? { isStaff: session.user.isStaff, isAdmin: session.user.isAdmin } : undefined,
    };
    const errors = Object.fromEntries(
      Object.entries(resolved.body.errors).map(([field, messages]) => [
        field,
        Array.isArray(messages) ? messages.map(String) : [String(messages)],
      ]),
    );
    sendPage(res, resolved.status, renderErrorPage(resolved.status, resolved.body.message, errors, viewer));
  }
}
