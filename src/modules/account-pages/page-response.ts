import type { Response } from 'express';
import { ACCOUNT_PAGE_CSP } from '../web-assets/site-assets';

/**
 * Sends an account page: HTML under the pages' strict CSP, never cached (it shows tokens and a
 * person's account), never framed (helmet's X-Frame-Options and the CSP's frame-ancestors).
 */
export function sendPage(res: Response, status: number, html: string): void {
  res.status(status);
  res.setHeader('Content-Security-Policy', ACCOUNT_PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  res.type('html').send(html);
}

/** Post/redirect/get: after a form did something, the browser loads the page afresh (303, so a reload does not post again). */
export function seeOther(res: Response, location: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, location);
}

/** The notice a `?done=` value names, or undefined (only the table's own keys: `?done=constructor` is nothing). */
export function noticeFor(notices: Record<string, string>, done: unknown): string | undefined {
  return typeof done === 'string' && Object.hasOwn(notices, done) ? notices[done] : undefined;
}
