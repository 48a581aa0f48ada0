import { AccountPageController } from './account-page.controller.decorator';
import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiError } from '../../core/http/api-error';
import { AccountRequestKind } from '../account-requests/account-request.entity';
import { AccountRequestsService } from '../account-requests/account-requests.service';
import { AccountsService } from '../accounts/accounts.service';
import { pageViewer } from './page-viewer';
import { AccessRequestForm, CodeRequestForm, DecisionForm } from './dto/page-forms.dto';
import { noticeFor, seeOther, sendPage } from './page-response';
import { CurrentPageSession, PageAccessFor, PageSession, signedInUser } from './page-session';
import { renderRequests, renderStaffRequests } from './views/requests.view';

/** How many pending requests the staff page shows at once (oldest first). */
const STAFF_PAGE_SIZE = 50;

const KIND_PATHS: Record<string, AccountRequestKind> = {
  'access-requests': 'upload_permission',
  'registry-code-requests': 'registry_code',
};

const REQUEST_NOTICES: Record<string, string> = {
  'asked-access': 'Your request for upload permission was sent. A curator will decide; the answer appears here.',
  'asked-code': 'Your request for a registry code was sent. A curator will decide; the answer appears here.',
};
const STAFF_NOTICES: Record<string, string> = {
  approved: 'Approved. The requester has been notified.',
  refused: 'Refused. The requester has been notified, with your message.',
};

/**
 * The pages for requests a curator decides: `/account/requests` (ask, and see the answers) and
 * `/staff/requests` (decide). They call AccountRequestsService exactly as the JSON API does.
 */
@AccountPageController()
export class RequestPagesController {
  constructor(
    private readonly accountRequestsService: AccountRequestsService,
    private readonly accountsService: AccountsService,
  ) {}

  @Get('account/requests')
  @PageAccessFor('signed-in')
  async myRequests(
    @Query('done') done: unknown,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    const user = signedInUser(session);
    const [viewer, requests, teams] = await Promise.all([
      pageViewer(this.accountsService, session),
      this.accountRequestsService.mine(user),
      this.accountsService.managedTeams(user.userId),
    ]);
    const html = renderRequests({
      viewer,
      uploadPermission: user.uploadPermission,
      requests,
      managedTeams: teams.map((team) => team.name),
      notice: noticeFor(REQUEST_NOTICES, done),
    });
    sendPage(res, 200, html);
  }

  @Post('account/requests/upload-permission')
  @PageAccessFor('signed-in')
  async askAccess(
    @Body() form: AccessRequestForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    await this.accountRequestsService.requestUploadPermission(signedInUser(session), form.reason);
    seeOther(res, '/account/requests?done=asked-access');
  }

  @Post('account/requests/registry-code')
  @PageAccessFor('signed-in')
  async askCode(
    @Body() form: CodeRequestForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    await this.accountRequestsService.requestRegistryCode(signedInUser(session), {
      code: form.code,
      team: form.team || undefined,
      reason: form.reason,
    });
    seeOther(res, '/account/requests?done=asked-code');
  }

  @Get('staff/requests')
  @PageAccessFor('staff')
  async staffRequests(
    @Query('done') done: unknown,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    const page = { page: 1, pageSize: STAFF_PAGE_SIZE, offset: 0 };
    const [viewer, pending] = await Promise.all([
      pageViewer(this.accountsService, session),
      this.accountRequestsService.list(signedInUser(session), { status: 'pending' }, page),
    ]);
    const html = renderStaffRequests({
      viewer,
      pending: pending.data,
      pendingCount: pending.count,
      notice: noticeFor(STAFF_NOTICES, done),
    });
    sendPage(res, 200, html);
  }

  @Post('staff/requests/:kind/:id/:decision')
  @PageAccessFor('staff')
  async decide(
    @Param('kind') kindPath: string,
    @Param('id') id: string,
    @Param('decision') decision: string,
    @Body() form: DecisionForm,
    @CurrentPageSession() session: PageSession,
    @Res() res: Response,
  ): Promise<void> {
    const kind = Object.hasOwn(KIND_PATHS, kindPath) ? KIND_PATHS[kindPath] : undefined;
    if (!kind || (decision !== 'approve' && decision !== 'refuse')) throw ApiError.notFound('Page not found.');
    const curator = signedInUser(session);
    if (decision === 'approve') await this.accountRequestsService.approve(curator, kind, id, form.message);
    else await this.accountRequestsService.refuse(curator, kind, id, form.message);
    seeOther(res, `/staff/requests?done=${decision === 'approve' ? 'approved' : 'refused'}`);
  }
}
