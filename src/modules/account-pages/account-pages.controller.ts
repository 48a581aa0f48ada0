import { AccountPageController } from './account-page.controller.decorator';
import { Body, Get, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { publicBaseUrl } from '../../core/http/public-address';
import { AccountsService } from '../accounts/accounts.service';
import { AuthThrottlerGuard } from '../auth/auth-throttler.guard';
import { ORCID_FLOW_SECONDS, OrcidSignInService } from '../auth/orcid-sign-in.service';
import { MAX_ACTIVE_DEVELOPER_PAIRS, TokenService } from '../auth/token.service';
import { CsrfTokens } from './csrf';
import { CsrfForm, SignInForm } from './dto/page-forms.dto';
import { clearCookie, readCookie, setCookie } from './page-cookies';
import { noticeFor, seeOther, sendPage } from './page-response';
import { CurrentPageSession, PageAccessFor, PageSession, safeNext, signedInUser } from './page-session';
import { DeveloperSettingsView, inWords, renderDeveloperSettings } from './views/developer-settings.view';
import { PageViewer } from './views/layout';
import { pageViewer } from './page-viewer';
import { renderSignIn, renderSignOut } from './views/sign-in.view';

const PRE_SESSION_MS = 2 * 60 * 60 * 1000;
const SETTINGS = '/account/developer-settings';

/** `?done=` after a form on the developer settings page: what to say. */
const SETTINGS_NOTICES: Record<string, string> = {
  revoked: 'The token pair was revoked: its tokens no longer work.',
  'revoked-all': 'All your developer token pairs were revoked: their tokens no longer work.',
  'session-revoked': 'The session was ended.',
  'orcid-linked': 'Your ORCID iD is now linked to this account: you can sign in with ORCID.',
};

/**
 * Signing in and out (ORCID, or email and password) and the developer settings page. Server-rendered
 * HTML outside /api/ (served through the public-pages mount); a browser session cookie identifies
 * the user here and nowhere in the JSON API.
 */
@AccountPageController()
export class AccountPagesController {
  constructor(
    private readonly accountsService: AccountsService,
    private readonly tokenService: TokenService,
    private readonly orcidSignInService: OrcidSignInService,
    private readonly csrf: CsrfTokens,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  private get secure(): boolean {
    return this.config.auth.sessionCookieSecure;
  }

  @Get(['account', 'staff'])
  home(@Res() res: Response): void {
    seeOther(res, SETTINGS);
  }

  @Get('account/sign-in')
  signInPage(
    @Query('next') next: unknown,
    @CurrentPageSession() session: PageSession,
    @Req() req: Request,
    @Res() res: Response,
  ): void {
    if (session.user) {
      seeOther(res, safeNext(next));
      return;
    }
    sendPage(
      res,
      200,
      renderSignIn({
        viewer: this.preSession(req, res),
        orcidEnabled: this.orcidSignInService.enabled,
        next: safeNext(next),
      }),
    );
  }

  /** The sign-in form's CSRF token is bound to a random pre-session cookie (set here when missing). */
  private preSession(req: Request, res: Response): PageViewer {
    let pre = readCookie(req, 'preSession', this.secure);
    if (!pre || !/^[A-Za-z0-9_-]{43}$/.test(pre)) {
      pre = randomBytes(32).toString('base64url');
      setCookie(res, 'preSession', pre, this.secure, PRE_SESSION_MS);
    }
    return { csrf: this.csrf.tokenFor(`pre:${pre}`) };
  }

  @Post('account/sign-in')
  @UseGuards(AuthThrottlerGuard)
  async signIn(
    @Body() form: SignInForm,
    @Query('next') next: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const user = await this.accountsService.authenticate(form.email, form.password);
    if (!user) {
      const view = {
        viewer: this.preSession(req, res),
        orcidEnabled: this.orcidSignInService.enabled,
        next: safeNext(next),
      };
      sendPage(res, 401, renderSignIn({ ...view, email: form.email, error: 'Invalid email or password.' }));
      return;
    }
    await this.startSession(res, user.id, 'browser-password');
    seeOther(res, safeNext(next));
  }

  private async startSession(
    res: Response,
    userId: number,
    origin: 'browser-password' | 'browser-orcid',
  ): Promise<void> {
    const session = await this.tokenService.issueBrowserSession(userId, origin);
    setCookie(res, 'session', session.token, this.secure, session.expiresAt.getTime() - Date.now());
    clearCookie(res, 'preSession', this.secure);
  }

  private orcidRedirectUri(req: Request): string {
    return `${publicBaseUrl(this.config.publicUrl, req)}/account/sign-in/orcid/callback`;
  }

  /** Leaves for ORCID (a link, not a form: the CSP's form-action would stop a form's redirect to ORCID). */
  @Get('account/sign-in/orcid')
  async startOrcid(@Query('next') next: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { url, flowToken } = await this.orcidSignInService.start(this.orcidRedirectUri(req), safeNext(next));
    setCookie(res, 'orcidFlow', flowToken, this.secure, ORCID_FLOW_SECONDS * 1000);
    seeOther(res, url);
  }

  @Get('account/sign-in/orcid/callback')
  async finishOrcid(
    @Query() query: Record<string, unknown>,
    @CurrentPageSession() session: PageSession,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const flowToken = readCookie(req, 'orcidFlow', this.secure);
    clearCookie(res, 'orcidFlow', this.secure);
    const result = await this.orcidSignInService.finish(
      query,
      flowToken,
      this.orcidRedirectUri(req),
      session.user?.userId,
    );
    if (result.linked) {
      seeOther(res, `${SETTINGS}?done=orcid-linked`);
      return;
    }
    await this.startSession(res, result.user.id, 'browser-orcid');
    seeOther(res, result.next);
  }

  @Get('account/sign-out')
  @PageAccessFor('signed-in')
  async signOutPage(@CurrentPageSession() session: PageSession, @Res() res: Response): Promise<void> {
    sendPage(res, 200, renderSignOut(await pageViewer(this.accountsService, session)));
  }

  @Post('account/sign-out')
  @PageAccessFor('signed-in')
  async signOut(
    @Body() _form: CsrfForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    const user = session.user;
    if (user) await this.tokenService.revokeSession(user.userId, user.tokenPairId);
    clearCookie(res, 'session', this.secure);
    seeOther(res, '/account/sign-in');
  }

  @Get('account/developer-settings')
  @PageAccessFor('signed-in')
  async developerSettings(
    @Query('done') done: unknown,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    const notice = noticeFor(SETTINGS_NOTICES, done);
    sendPage(res, 200, renderDeveloperSettings(await this.settingsView(session, { notice })));
  }

  /** Generates a pair and shows it in this answer only (never in a URL, never cached). */
  @Post('account/developer-settings/tokens')
  @HttpCode(200)
  @PageAccessFor('signed-in')
  async generate(
    @Body() _form: CsrfForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    const user = signedInUser(session);
    if (!user.uploadPermission) throw ApiError.forbidden('Generating developer tokens requires upload permission.');
    const pair = await this.tokenService.issuePair(user.userId, 'developer');
    const created = { ...pair, lastUsedAt: null };
    sendPage(res, 200, renderDeveloperSettings(await this.settingsView(session, { created })));
  }

  @Post('account/developer-settings/tokens/:id/revoke')
  @PageAccessFor('signed-in')
  async revoke(
    @Param('id') id: string,
    @Body() _form: CsrfForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    await this.tokenService.revokeDeveloperPair(signedInUser(session).userId, id);
    seeOther(res, `${SETTINGS}?done=revoked`);
  }

  @Post('account/developer-settings/revoke-all')
  @PageAccessFor('signed-in')
  async revokeAll(
    @Body() _form: CsrfForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    await this.tokenService.revokeAllDeveloperPairs(signedInUser(session).userId);
    seeOther(res, `${SETTINGS}?done=revoked-all`);
  }

  @Post('account/developer-settings/sessions/:id/revoke')
  @PageAccessFor('signed-in')
  async revokeSession(
    @Param('id') id: string,
    @Body() _form: CsrfForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    await this.tokenService.revokeSession(signedInUser(session).userId, id);
    seeOther(res, `${SETTINGS}?done=session-revoked`);
  }

  private async settingsView(
    session: PageSession,
    extra: Pick<DeveloperSettingsView, 'created' | 'notice'>,
  ): Promise<DeveloperSettingsView> {
    const user = signedInUser(session);
    const [viewer, account, developerPairs, sessions] = await Promise.all([
      pageViewer(this.accountsService, session),
      this.accountsService.requireUser(user.userId),
      this.tokenService.listDeveloperPairs(user.userId),
      this.tokenService.listSessions(user.userId),
    ]);
    return {
      viewer,
      account: {
        name: account.individual?.label ?? null,
        email: account.email,
        orcid: account.orcid,
        uploadPermission: user.uploadPermission,
      },
      orcidEnabled: this.orcidSignInService.enabled,
      maxPairs: MAX_ACTIVE_DEVELOPER_PAIRS,
      lifetimes: {
        access: inWords(this.config.auth.accessTtlSeconds),
        refresh: inWords(this.config.auth.refreshTtlSeconds),
      },
      developerPairs,
      sessions: sessions.map((pair) => ({
        id: pair.id,
        kind: pair.kind,
        connection: pair.connectionName,
        origin: pair.origin,
        createdAt: pair.createdAt,
        expiresAt: pair.expiresAt,
        lastUsedAt: pair.lastUsedAt,
        current: pair.id === user.tokenPairId,
      })),
      ...extra,
    };
  }
}
