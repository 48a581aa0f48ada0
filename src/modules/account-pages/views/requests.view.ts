import { AccountRequestDto } from '../../account-requests/dto/account-request.dto';
import { PageViewer, csrfField, renderPage, text, when } from './layout';

const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting for a curator',
  approved: 'Approved',
  refused: 'Refused',
};

export function requestTitle(request: AccountRequestDto): string {
  if (request.kind === 'upload_permission') return 'Upload permission';
  return `Registry code ${request.code ?? ''}${request.team ? ` for team ${request.team.name}` : ''}`;
}

function status(request: AccountRequestDto): string {
  return `<span class="status status-${text(request.status)}">${text(STATUS_WORDS[request.status] ?? request.status)}</span>`;
}

function myRequest(request: AccountRequestDto): string {
  const decision =
    request.status === 'pending'
      ? ''
      : `<dt>Decided</dt><dd>${when(request.decided_at)}${request.decided_by ? ` by ${text(request.decided_by)}` : ''}</dd>
<dt>Message</dt><dd>${text(request.decision_message ?? '—')}</dd>`;
  return `<article class="request" aria-labelledby="request-${request.id}">
<h3 id="request-${request.id}">${text(requestTitle(request))}</h3>
<dl>
<dt>Status</dt><dd>${status(request)}</dd>
<dt>Asked</dt><dd>${when(request.created_at)}</dd>
<dt>Your reason</dt><dd>${text(request.reason)}</dd>
${decision}
</dl>
</article>`;
}

export interface RequestsView {
  viewer: PageViewer;
  uploadPermission: boolean;
  /** Newest first. */
  requests: AccountRequestDto[];
  managedTeams: string[];
  notice?: string;
}

/** `/account/requests`: ask for upload permission or a registry code, and see what was decided. */
export function renderRequests(view: RequestsView): string {
  const csrf = view.viewer.csrf;
  const accessPending = view.requests.some(
    (request) => request.kind === 'upload_permission' && request.status === 'pending',
  );
  const access = view.uploadPermission
    ? '<p>You have upload permission: you may register samples and generate API tokens.</p>'
    : accessPending
      ? '<p>You asked for upload permission; a curator will decide soon. You will find the answer here and in your notifications.</p>'
      : `<form method="post" action="/account/requests/upload-permission" class="stacked">
${csrfField(csrf)}
<label for="access-reason">Why do you need to register samples?</label>
<p class="hint" id="access-reason-hint">Your project or institution, and the samples you will register. A curator reads this.</p>
<textarea id="access-reason" name="reason" required maxlength="2000" aria-describedby="access-reason-hint"></textarea>
<div><button type="submit">Ask for upload permission</button></div>
</form>`;
  const owners = [
    '<option value="">Myself</option>',
    ...view.managedTeams.map((team) => `<option value="${text(team)}">Team ${text(team)}</option>`),
  ].join('');
  const code = `<form method="post" action="/account/requests/registry-code" class="stacked">
${csrfField(csrf)}
<label for="code">Registry code</label>
<p class="hint" id="code-hint">IE followed by three letters or digits, such as IEWHC. IGSNs you register begin with it.</p>
<input id="code" name="code" type="text" required maxlength="5" pattern="[Ii][Ee][A-Za-z0-9]{3}|[A-Za-z0-9]{3}" autocapitalize="characters" spellcheck="false" aria-describedby="code-hint">
<label for="code-owner">For</label>
<p class="hint" id="code-owner-hint">A code for a team is shared by its editors and managers; only a team's managers may ask for one.</p>
<select id="code-owner" name="team" aria-describedby="code-owner-hint">${owners}</select>
<label for="code-reason">What will you register under it?</label>
<textarea id="code-reason" name="reason" required maxlength="2000"></textarea>
<div><button type="submit">Ask for this registry code</button></div>
</form>`;
  const mine = view.requests.length
    ? view.requests.map(myRequest).join('\n')
    : '<p>You have not asked for anything yet.</p>';
  return renderPage({
    title: 'My requests',
    viewer: view.viewer,
    path: '/account/requests',
    flash: view.notice ? { kind: 'notice', html: `<p>${text(view.notice)}</p>` } : undefined,
    body: `<section aria-labelledby="access-heading">
<h2 id="access-heading">Upload permission (API access)</h2>
${access}
</section>
<section aria-labelledby="code-heading">
<h2 id="code-heading">A registry code</h2>
${code}
</section>
<section aria-labelledby="mine-heading">
<h2 id="mine-heading">What you asked for</h2>
${mine}
</section>`,
  });
}

function pendingRequest(request: AccountRequestDto, csrf: string): string {
  const path = request.kind === 'upload_permission' ? 'access-requests' : 'registry-code-requests';
  const who = [
    request.requester.name,
    request.requester.email,
    request.requester.orcid ? `ORCID ${request.requester.orcid}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const action = `/staff/requests/${path}/${request.id}`;
  return `<article class="request" aria-labelledby="pending-${request.id}">
<h3 id="pending-${request.id}">${text(requestTitle(request))}</h3>
<dl>
<dt>From</dt><dd>${text(who || `user ${request.requester.id}`)}</dd>
<dt>Asked</dt><dd>${when(request.created_at)}</dd>
<dt>Reason</dt><dd>${text(request.reason)}</dd>
</dl>
<form method="post" action="${action}/approve" class="stacked">
${csrfField(csrf)}
<label for="message-${request.id}">Message to the requester</label>
<p class="hint" id="message-hint-${request.id}">Optional when approving; needed when refusing.</p>
<textarea id="message-${request.id}" name="message" maxlength="2000" aria-describedby="message-hint-${request.id}"></textarea>
<div class="actions">
<button type="submit">Approve</button>
<button type="submit" class="danger" formaction="${action}/refuse">Refuse</button>
</div>
</form>
</article>`;
}

export interface StaffRequestsView {
  viewer: PageViewer;
  pending: AccountRequestDto[];
  pendingCount: number;
  notice?: string;
}

/** `/staff/requests`: the pending requests, oldest first, each with approve and refuse. */
export function renderStaffRequests(view: StaffRequestsView): string {
  const more =
    view.pendingCount > view.pending.length
      ? `<p class="muted">Showing the oldest ${view.pending.length} of ${view.pendingCount}; decide these to see the rest.</p>`
      : '';
  const list = view.pending.length
    ? view.pending.map((request) => pendingRequest(request, view.viewer.csrf)).join('\n')
    : '<p>Nothing is waiting for a decision.</p>';
  return renderPage({
    title: 'Requests to decide',
    viewer: view.viewer,
    path: '/staff/requests',
    flash: view.notice ? { kind: 'notice', html: `<p>${text(view.notice)}</p>` } : undefined,
    body: `<p>Approving upload permission lets the person register samples and generate API tokens. Approving a
registry code creates it as <code>registry-code:create</code> does. The requester is notified either way.</p>
${more}
${list}`,
  });
}
