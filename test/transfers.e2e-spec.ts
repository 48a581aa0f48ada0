import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import { waitForJob } from './support/jobs';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Who = { auth: { Authorization: string } };
interface Transfer {
  id: number;
  status: string;
  sample_count: number;
  moved_count: number | null;
  skipped_count: number | null;
  job_id: string | null;
  direct: boolean;
  to: { user_id: number | null; team_id: number | null };
}

/** Acceptances above this many samples run as a background job (small here, so the test sees one). */
const INLINE_MAX = 5;

describe('ownership transfers (/api/transfers/)', () => {
  let app: INestApplication;
  let worker: WorkerProcess;
  let alice: Registrant;
  let dora: Registrant;
  let bob: TestUser;
  let carol: TestUser;
  let mia: TestUser;
  let vic: TestUser;
  let staff: TestUser;
  let teamName: string;
  const http = () => request(app.getHttpServer());

  const register = async (owner: Registrant, body: Record<string, unknown> = {}) =>
    (
      await http()
        .post('/api/samples/')
        .set(owner.auth)
        .send({
          registry_code: owner.code,
          object_type: 'Core',
          name: `T ${randomUUID()}`,
          latitude: 1,
          longitude: 2,
          ...body,
        })
        .expect(201)
    ).body.data as { igsn: string };
  const offer = (who: Who, body: Record<string, unknown>, status = 201) =>
    http().post('/api/transfers/').set(who.auth).send(body).expect(status);
  const act = (who: Who, id: number, action: 'accept' | 'reject' | 'cancel', status = 200, body = {}) =>
    http().post(`/api/transfers/${id}/${action}/`).set(who.auth).send(body).expect(status);
  const patch = (who: Who, igsn: string) =>
    http()
      .patch(`/api/samples/${igsn}/`)
      .set(who.auth)
      .send({ purpose: `edited ${randomUUID()}` });
  const notifications = async (who: Who) =>
    (await http().get('/api/users/me/notifications/').set(who.auth).expect(200)).body.data as {
      kind: string;
      subject: string;
      body: { transfer_id: number };
    }[];

  beforeAll(async () => {
    worker = await startWorkerProcess();
    app = await createTestApp({ config: testConfig({ TRANSFER_INLINE_MAX: String(INLINE_MAX) }) });
    [alice, dora] = await Promise.all([createRegistrant(app), createRegistrant(app)]);
    [bob, carol, mia, vic] = await Promise.all([1, 2, 3, 4].map(() => createUserWithToken(app)));
    staff = await createUserWithToken(app, { isStaff: true });
    const accounts = app.get(AccountsService);
    teamName = `Transfers ${randomUUID().slice(0, 8)}`;
    await accounts.createTeam(teamName);
    await accounts.addTeamMember(teamName, mia.email, 'manager');
    await accounts.addTeamMember(teamName, vic.email, 'viewer');
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await worker?.stop();
  });

  it('accepted: ownership, permissions and history move at once; both sides are told', async () => {
    const published = await register(alice);
    const draft = await register(alice, { is_draft: true });
    const res = await offer(alice, {
      to_user_email: bob.email,
      igsns: [published.igsn, draft.igsn],
      message: 'yours now',
    });
    const transfer = res.body.data as Transfer;
    expect(transfer).toMatchObject({ status: 'pending', sample_count: 2, direct: false, to: { user_id: bob.userId } });
    expect((await notifications(bob)).map((n) => n.body.transfer_id)).toContain(transfer.id);
    const incoming = (await http().get('/api/transfers/?direction=incoming').set(bob.auth).expect(200)).body;
    expect(incoming.data.map((t: Transfer) => t.id)).toContain(transfer.id);
    expect((await patch(bob, published.igsn)).status).toBe(403); // not his yet
    await http().get(`/api/samples/${draft.igsn}/`).set(bob.auth).expect(404);

    const accepted = (await act(bob, transfer.id, 'accept')).body.data as Transfer;
    expect(accepted).toMatchObject({ status: 'accepted', moved_count: 2, skipped_count: 0 });
    expect((await patch(bob, published.igsn)).status).toBe(200);
    expect((await patch(alice, published.igsn)).status).toBe(403);
    expect((await http().get(`/api/samples/${draft.igsn}/`).set(bob.auth).expect(200)).body.data.user_owner).toBe(
      bob.userId,
    );
    await http().get(`/api/samples/${draft.igsn}/`).set(alice.auth).expect(404);
    const history = await app.get(DataSource).query(
      `SELECT h.event, h.actor_id, h.detail FROM sample_history h JOIN sample s ON s.id = h.sample_id
        WHERE s.igsn = $1`,
      [published.igsn.split('/').pop()],
    );
    expect(history).toEqual([
      {
        event: 'ownership_transferred',
        actor_id: bob.userId,
        detail: {
          transfer_id: transfer.id,
          from_user_id: alice.userId,
          from_team_id: null,
          to_user_id: bob.userId,
          to_team_id: null,
        },
      },
    ]);
    expect((await notifications(alice)).find((n) => n.body.transfer_id === transfer.id)?.subject).toMatch(/accepted/);
    await act(bob, transfer.id, 'accept', 409);
    await act(alice, transfer.id, 'cancel', 409);
  });

  it('rejected: nothing moves; only the recipient decides; strangers do not see it', async () => {
    const sample = await register(alice);
    const transfer = (await offer(alice, { to_user_email: carol.email, registry_code: alice.code })).body
      .data as Transfer;
    await http().get(`/api/transfers/${transfer.id}/`).set(bob.auth).expect(404);
    await act(bob, transfer.id, 'accept', 404);
    await act(alice, transfer.id, 'accept', 403); // the sender cannot accept for the recipient
    const rejected = (await act(carol, transfer.id, 'reject', 200, { message: 'not ours' })).body.data;
    expect(rejected).toMatchObject({ status: 'rejected', decision_message: 'not ours', moved_count: null });
    expect((await patch(alice, sample.igsn)).status).toBe(200);
    expect((await patch(carol, sample.igsn)).status).toBe(403);
    const outgoing = (await http().get('/api/transfers/?direction=outgoing').set(alice.auth).expect(200)).body;
    expect(outgoing.data.find((t: Transfer) => t.id === transfer.id)?.status).toBe('rejected');
  });

  it('to a team: a manager accepts, a viewer may then see but not edit; cancelled ones cannot be accepted', async () => {
    const draft = await register(alice, { is_draft: true });
    const cancelled = (await offer(alice, { to_team: teamName, igsns: [draft.igsn] })).body.data as Transfer;
    expect(
      (await http().get('/api/transfers/').set(mia.auth).expect(200)).body.data.map((t: Transfer) => t.id),
    ).toContain(cancelled.id);
    await act(vic, cancelled.id, 'accept', 404); // a viewer does not act for the team
    await act(alice, cancelled.id, 'cancel');
    await act(mia, cancelled.id, 'accept', 409);

    const transfer = (await offer(alice, { to_team: teamName, igsns: [draft.igsn] })).body.data as Transfer;
    const accepted = (await act(mia, transfer.id, 'accept')).body.data as Transfer;
    expect(accepted).toMatchObject({ status: 'accepted', moved_count: 1 });
    expect((await http().get(`/api/samples/${draft.igsn}/`).set(vic.auth).expect(200)).body.data.team_owner).toBe(
      accepted.to.team_id,
    );
    expect((await patch(vic, draft.igsn)).status).toBe(403);
    expect((await patch(mia, draft.igsn)).status).toBe(200);
    await http().get(`/api/samples/${draft.igsn}/`).set(alice.auth).expect(404);
  });

  it('skips samples the sender no longer owns when the transfer is accepted', async () => {
    const [kept, given] = [await register(alice), await register(alice)];
    const first = (await offer(alice, { to_user_email: carol.email, igsns: [kept.igsn, given.igsn] })).body.data;
    const second = (await offer(alice, { to_user_email: bob.email, igsns: [given.igsn] })).body.data;
    await act(bob, second.id, 'accept');
    const accepted = (await act(carol, first.id, 'accept')).body.data;
    expect(accepted).toMatchObject({ moved_count: 1, skipped_count: 1 });
    expect((await patch(bob, given.igsn)).status).toBe(200);
  });

  it('refuses bad transfers with 400/403 naming the field', async () => {
    const bobs = await register(dora);
    const mine = await register(alice);
    const cases: [Who, Record<string, unknown>, number, string][] = [
      [alice, { to_user_email: bob.email, igsns: [bobs.igsn] }, 400, 'igsns.0'],
      [alice, { to_user_email: bob.email, igsns: [mine.igsn], all_of_mine: true }, 400, 'igsns'],
      [alice, { igsns: [mine.igsn] }, 400, 'to_user_email'],
      [alice, { to_user_email: alice.email, igsns: [mine.igsn] }, 400, 'to_user_email'],
      [alice, { to_user_email: 'nobody@example.org', igsns: [mine.igsn] }, 400, 'to_user_email'],
      [alice, { to_team: 'No such team', igsns: [mine.igsn] }, 400, 'to_team'],
      [alice, { to_user_email: bob.email, registry_code: dora.code }, 400, 'registry_code'],
      [alice, { to_user_email: bob.email, igsns: ['not an igsn'] }, 400, 'igsns.0'],
      [alice, { to_user_email: bob.email, all_of_mine: true, colour: 'red' }, 400, 'colour'],
    ];
    for (const [who, body, status, field] of cases) {
      const res = await offer(who, body, status);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    await offer(alice, { to_user_email: bob.email, all_of_mine: true, from_user_email: dora.email }, 403);
    await http().post('/api/transfers/').send({ to_user_email: bob.email, all_of_mine: true }).expect(401);
    await http().get('/api/transfers/?direction=sideways').set(alice.auth).expect(400);
  });

  it('staff transfer directly, also the samples of someone who left', async () => {
    const sample = await register(dora);
    const direct = (
      await offer(staff, { from_user_email: dora.email, to_user_email: carol.email, igsns: [sample.igsn] })
    ).body.data as Transfer;
    expect(direct).toMatchObject({ status: 'accepted', direct: true, moved_count: 1 });
    expect((await patch(carol, sample.igsn)).status).toBe(200);
    expect((await patch(dora, sample.igsn)).status).toBe(403);
  });

  it('moves a large transfer in a background job with progress, in one transaction', async () => {
    const count = INLINE_MAX * 3;
    const ids: { igsn: string }[] = [];
    for (let i = 0; i < count; i++) ids.push(await register(dora, { is_draft: i % 2 === 0 }));
    const transfer = (await offer(dora, { to_user_email: bob.email, registry_code: dora.code })).body.data as Transfer;
    const accepting = (await act(bob, transfer.id, 'accept')).body.data as Transfer;
    expect(accepting.status).toBe('accepting');
    expect(accepting.job_id).toEqual(expect.any(String));
    await act(dora, transfer.id, 'cancel', 409);
    const job = await waitForJob<{
      status: string;
      job_type: string;
      processed_count: number;
      total_count: number;
    }>(app, bob, accepting.job_id as string, { timeoutMs: 120_000 });
    expect(job).toMatchObject({ status: 'completed', job_type: 'ownership_transfer' });
    expect(job.processed_count).toBe(job.total_count);
    const done = (await http().get(`/api/transfers/${transfer.id}/`).set(bob.auth).expect(200)).body.data as Transfer;
    expect(done).toMatchObject({ status: 'accepted', skipped_count: 0 });
    expect(done.moved_count).toBe(transfer.sample_count);
    for (const sample of ids.slice(0, 3)) expect((await patch(bob, sample.igsn)).status).toBe(200);
  }, 180_000);
});
