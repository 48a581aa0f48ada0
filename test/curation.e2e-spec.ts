import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ErrorBody } from '../src/core/http/error-body';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { CurationEventListResponse } from '../src/modules/batches/curation/dto/curation.dto';
import { NotificationListResponse } from '../src/modules/notifications/dto/notification.dto';
import { IgsnService } from '../src/modules/samples/igsn.service';
import { IgsnMinter } from '../src/modules/samples/igsn-minter';
import { StoreStatus } from '../src/modules/samples/sample.entity';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import { createTestApp } from './support/test-app';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook } from './support/workbooks';
import { waitForJob } from './support/jobs';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Auth = { auth: { Authorization: string } };

const REASONS = 'this was a test sample; this sample does not exist; duplicate igsn; other';

interface SeedSample {
  status?: StoreStatus;
  latitude?: number | null;
  longitude?: number | null;
  columns?: Record<string, unknown>;
}

describe('batch curation', () => {
  let app: INestApplication;
  let db: DataSource;
  let owner: Registrant;
  let curator: TestUser;
  let stranger: TestUser;
  const http = () => request(app.getHttpServer());
  const doi = (suffix: string) => app.get(IgsnService).toDoi(suffix);

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    owner = await createRegistrant(app);
    curator = await createUserWithToken(app, { isStaff: true });
    stranger = await createUserWithToken(app);
  });

  afterAll(async () => {
    await app.close();
  });

  /**
   * A processed batch written straight into the database (as the worker would leave it): a
   * batch_history row and `samples` with minted IGSNs. Much faster than an upload and a worker.
   */
  async function seedBatch(
    who: Registrant,
    samples: SeedSample[],
    options: { teamOwnerId?: number } = {},
  ): Promise<{ id: number; igsns: string[]; names: string[] }> {
    const tag = randomUUID().slice(0, 8);
    return db.transaction(async (manager) => {
      const [batch] = await manager.query<{ id: number }[]>(
        `INSERT INTO batch_history (registry_code, sample_count, processed_time, filename, save_as_draft,
                                    uploaded_by_id, user_owner_id, team_owner_id, object_type)
         VALUES ($1, $2, now(), $3, false, $4, $4, $5, 'Core') RETURNING id`,
        [who.code, samples.length, `${tag}.xlsx`, who.userId, options.teamOwnerId ?? null],
      );
      const igsns = await app.get(IgsnMinter).mint(manager, who.code, samples.length);
      const names = samples.map((_, i) => `${tag}-${i + 1}`);
      for (const [i, sample] of samples.entries()) {
        const columns: Record<string, unknown> = {
          igsn: igsns[i],
          registry_code: who.code,
          name: names[i],
          object_type_id: () => "(SELECT id FROM object_type WHERE label = 'Core' LIMIT 1)",
          latitude: sample.latitude === undefined ? 40 + i / 1000 : sample.latitude,
          longitude: sample.longitude === undefined ? -70 : sample.longitude,
          metadata_store_status: sample.status ?? 'draft',
          user_owner_id: who.userId,
          team_owner_id: options.teamOwnerId ?? null,
          batch_id: batch.id,
          created_by: who.userId,
          ...sample.columns,
        };
        const keys = Object.keys(columns);
        const params: unknown[] = [];
        const values = keys.map((key) => {
          const value = columns[key];
          return typeof value === 'function' ? (value as () => string)() : `$${params.push(value)}`;
        });
        await manager.query(`INSERT INTO sample (${keys.join(', ')}) VALUES (${values.join(', ')})`, params);
      }
      return { id: batch.id, igsns, names };
    });
  }

  const curation = (who: Auth, id: number, query = '') =>
    http().get(`/api/batches/${id}/curation/${query}`).set(who.auth);
  const post = (who: Auth, id: number, action: string, body?: object) =>
    http()
      .post(`/api/batches/${id}/${action}/`)
      .set(who.auth)
      .send(body ?? {});
  const events = async (who: Auth, id: number) =>
    (await http().get(`/api/batches/${id}/events/`).set(who.auth).expect(200)).body as CurationEventListResponse;
  const notifications = async (who: Auth, query = '') =>
    (await http().get(`/api/users/me/notifications/${query}`).set(who.auth).expect(200))
      .body as NotificationListResponse;

  describe('an uploaded batch, end to end (real upload and worker)', () => {
    let worker: WorkerProcess | undefined;

    beforeAll(async () => {
      worker = await startWorkerProcess();
    }, 90_000);

    afterAll(async () => {
      await worker?.stop();
    });

    it('walks upload → draft → submit → feedback → accept → public search', async () => {
      const tag = randomUUID().slice(0, 8);
      const file = buildWorkbook({
        metadata: { registry_code: owner.code, object_type: 'Core' },
        headers: [
          'Sample Name',
          'Latitude (WGS84)',
          'Longitude (WGS84)',
          'Country',
          'Collector',
          'Material Type(s)',
          'Elevation',
        ],
        rows: [1, 2, 3].map((i) => [
          `${tag}-${i}`,
          40 + i / 10,
          -70,
          'United States',
          'Marie Tharp',
          'Rock; Ice',
          12.5,
        ]),
      });
      const queued = await http()
        .post('/api/batches/upload/')
        .set(owner.auth)
        .attach('file', file, 'curation.xlsx')
        .field('save_as_draft', 'true')
        .expect(202);
      const job = await waitForJob<{ status: string; result: { batch_id: number } | null }>(
        app,
        owner,
        queued.body.data.job_id,
      );
      expect(job.status).toBe('completed');
      const batchId = (job.result as { batch_id: number }).batch_id;

      // The curation view: what all three share, what differs, one page of samples.
      const view = (await curation(owner, batchId).expect(200)).body.data;
      expect(view.batch).toMatchObject({
        id: batchId,
        filename: 'curation.xlsx',
        sample_count: 3,
        status: 'completed',
      });
      expect(view.sample_count).toBe(3);
      expect(view.store_status_counts).toEqual({ draft: 3, 'pending-review': 0, published: 0 });
      expect(view.shared_fields).toEqual([
        { key: 'object_type', label: 'Object Type', value: 'Core' },
        { key: 'registry_code', label: 'Registry Code', value: owner.code },
        { key: 'material_types', label: 'Material Type(s)', value: 'Rock; Ice' },
        { key: 'longitude', label: 'Longitude (WGS84)', value: '-70' },
        { key: 'elevation', label: 'Elevation', value: '12.5' },
        { key: 'country', label: 'Country', value: 'US' },
        { key: 'collector', label: 'Collector', value: 'Marie Tharp' },
      ]);
      expect(view.columns).toEqual([
        { key: 'name', label: 'Sample Name' },
        { key: 'igsn', label: 'IGSN' },
        { key: 'latitude', label: 'Latitude (WGS84)' },
      ]);
      expect(view.samples).toHaveLength(3);
      expect(view.samples[0]).toEqual({
        igsn: expect.stringMatching(/^10\.5072\//),
        name: `${tag}-1`,
        latitude: '40.1',
      });
      const firstPage = (await curation(owner, batchId, '?page_size=2').expect(200)).body.data;
      expect(firstPage.samples.map((s: { name: string }) => s.name)).toEqual([`${tag}-1`, `${tag}-2`]);
      expect(firstPage.sample_count).toBe(3);
      expect(firstPage.pagination).toMatchObject({ current_page: 1, total_pages: 2, page_size: 2, previous: null });
      expect(firstPage.pagination.next).toMatch(/\/api\/batches\/\d+\/curation\/\?page_size=2&page=2$/);
      const secondPage = (await curation(owner, batchId, '?page_size=2&page=2').expect(200)).body.data;
      expect(secondPage.samples.map((s: { name: string }) => s.name)).toEqual([`${tag}-3`]);
      await curation(stranger, batchId).expect(404);

      // Submit: drafts → pending-review; a repeat changes nothing.
      const submitted = (await post(owner, batchId, 'submit-for-review').expect(200)).body.data;
      expect(submitted).toEqual({ updated_sample_count: 3, batch: expect.objectContaining({ id: batchId }) });
      expect((await post(owner, batchId, 'submit-for-review').expect(200)).body.data.updated_sample_count).toBe(0);

      // Feedback from a curator: stored, shown on the batch, notified to the owner (in-app by default).
      const igsn = view.samples[1].igsn as string;
      const feedback = await post(curator, batchId, 'feedback', {
        general_feedback: 'Please add the core diameter.',
        sample_feedback: [{ igsn: igsn.toLowerCase(), comment: 'Latitude looks rounded.' }],
      }).expect(200);
      expect(feedback.body).toEqual({ data: { message: `Feedback on batch ${batchId} recorded.` } });
      const withFeedback = (await curation(owner, batchId).expect(200)).body.data;
      expect(withFeedback.feedback).toEqual([
        {
          id: expect.any(Number),
          author_id: curator.userId,
          author_name: 'Test User',
          general_feedback: 'Please add the core diameter.',
          sample_feedback: [{ igsn, name: `${tag}-2`, comment: 'Latitude looks rounded.' }],
          created_at: expect.any(String),
        },
      ]);
      const inbox = await notifications(owner, '?unread=true');
      expect(inbox.data[0]).toMatchObject({
        kind: 'batch_feedback',
        channel: 'in_app',
        delivery_status: 'delivered',
        read_at: null,
        subject: `Curator feedback on batch ${batchId} (curation.xlsx)`,
        body: { batch_id: batchId, general_feedback: 'Please add the core diameter.', sample_feedback: [{ igsn }] },
      });

      // Accept: only curators; pending-review → published, then public; a repeat says 0.
      expect((await post(owner, batchId, 'accept').expect(403)).body).toEqual({
        message: 'Only curators (staff) may accept a batch.',
        errors: {},
      });
      expect((await http().get(`/api/samples/?q=${tag}`).expect(200)).body.count).toBe(0);
      const accepted = (await post(curator, batchId, 'accept').expect(200)).body.data;
      expect(accepted.updated_sample_count).toBe(3);
      expect((await post(curator, batchId, 'accept').expect(200)).body.data.updated_sample_count).toBe(0);
      const found = await http().get(`/api/samples/?q=${tag}`).expect(200);
      expect(found.body.count).toBe(3);
      expect(found.body.data[0]).toMatchObject({
        metadata_store_status: 'published',
        publish_date: expect.any(String),
      });

      // The audit trail, newest first; repeats that changed nothing left no event.
      const trail = await events(owner, batchId);
      expect(trail.count).toBe(3);
      expect(trail.data.map((e) => [e.action, e.actor_id, e.from_state, e.to_state, e.affected_count])).toEqual([
        ['accept', curator.userId, 'pending-review', 'published', 3],
        ['feedback', curator.userId, null, null, 1],
        ['submit_for_review', owner.userId, 'draft', 'pending-review', 3],
      ]);
    }, 60_000);
  });

  it('refuses to submit when a draft has no coordinates, naming the samples, and changes nothing', async () => {
    const batch = await seedBatch(owner, [{}, { latitude: null, longitude: null }, {}]);
    const res = await post(owner, batch.id, 'submit-for-review').expect(400);
    expect(res.body).toEqual({
      message:
        '1 draft sample(s) have no coordinates; latitude and longitude are required for review. Nothing was submitted.',
      errors: { [doi(batch.igsns[1])]: ['latitude is required for review', 'longitude is required for review'] },
    });
    const view = (await curation(owner, batch.id).expect(200)).body.data;
    expect(view.store_status_counts).toEqual({ draft: 3, 'pending-review': 0, published: 0 });
    expect((await events(owner, batch.id)).count).toBe(0);
  });

  it('sends a batch draft un-drafted with PATCH to pending-review, not past curation to published', async () => {
    const batch = await seedBatch(owner, [{}, { latitude: null, longitude: null }]);
    const patch = (igsn: string, body: object) =>
      http().patch(`/api/samples/${igsn}/`).set(owner.auth).send(body).expect(200);
    const first = (await patch(batch.igsns[0], { is_draft: false })).body.data;
    expect(first).toMatchObject({ is_draft: false, metadata_store_status: 'pending-review', publish_date: null });
    const second = (await patch(batch.igsns[1], { is_draft: false, latitude: 1, longitude: 2 })).body.data;
    expect(second.metadata_store_status).toBe('pending-review');
    // Not public until a curator accepts the batch.
    await http().get(`/api/samples/${batch.igsns[0]}/`).expect(401);
    const view = (await curation(owner, batch.id).expect(200)).body.data;
    expect(view.store_status_counts).toEqual({ draft: 0, 'pending-review': 2, published: 0 });
    expect((await post(curator, batch.id, 'accept').expect(200)).body.data.updated_sample_count).toBe(2);
    await http().get(`/api/samples/${batch.igsns[0]}/`).expect(200);
  });

  it('answers 404 to strangers and 403 to those who may see but not act', async () => {
    const batch = await seedBatch(owner, [{ status: 'pending-review' }]);
    for (const [method, path] of [
      ['get', 'curation'],
      ['get', 'events'],
      ['post', 'submit-for-review'],
      ['post', 'accept'],
      ['post', 'feedback'],
    ] as const) {
      const res = await http()[method](`/api/batches/${batch.id}/${path}/`).set(stranger.auth).send({});
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 404,
        body: { message: 'Batch not found.', errors: {} },
      });
    }
    await post(stranger, batch.id, 'deactivate', { reason: 'other' }).expect(404);
    await http().get('/api/batches/999999999/curation/').set(curator.auth).expect(404);
    await http().get('/api/batches/not-a-number/curation/').set(curator.auth).expect(404);
    await http().get(`/api/batches/${batch.id}/curation/`).expect(401);

    await post(owner, batch.id, 'accept').expect(403);
    const refused = await post(owner, batch.id, 'feedback', { general_feedback: 'mine' }).expect(403);
    expect(refused.body.message).toBe('Only curators (staff) may give feedback on a batch.');

    // Team members: viewers see the batch but may not change it; editors may submit it.
    const accounts = app.get(AccountsService);
    const team = await accounts.createTeam(`curation-${randomUUID().slice(0, 8)}`);
    const viewer = await createUserWithToken(app);
    const editor = await createUserWithToken(app);
    await accounts.addTeamMember(team.name, viewer.email, 'viewer');
    await accounts.addTeamMember(team.name, editor.email, 'editor');
    const teamBatch = await seedBatch(owner, [{}, {}], { teamOwnerId: team.id });
    expect((await curation(viewer, teamBatch.id).expect(200)).body.data.sample_count).toBe(2);
    const viewerSubmit = await post(viewer, teamBatch.id, 'submit-for-review').expect(403);
    expect(viewerSubmit.body.message).toBe('You may not submit this batch: that needs edit permission on its samples.');
    await post(viewer, teamBatch.id, 'deactivate', { reason: 'other' }).expect(403);
    expect((await post(editor, teamBatch.id, 'submit-for-review').expect(200)).body.data.updated_sample_count).toBe(2);
  });

  it('deactivates every sample of a batch; they are never fetched again', async () => {
    const batch = await seedBatch(owner, [{ status: 'draft' }, { status: 'published' }, { status: 'published' }]);
    const wrong = await post(owner, batch.id, 'deactivate', { reason: 'duplicate' }).expect(400);
    expect(wrong.body).toEqual({
      message: 'Validation failed: reason.',
      errors: { reason: [`reason must be one of: ${REASONS}`] },
    });
    await post(owner, batch.id, 'deactivate', {}).expect(400);
    await post(owner, batch.id, 'deactivate', { reason: 'other', colour: 'red' }).expect(400);
    await http().get(`/api/samples/${batch.igsns[1]}/`).expect(200);

    const res = await post(owner, batch.id, 'deactivate', { reason: 'duplicate igsn', comment: 'uploaded twice' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deactivated_sample_count: 3, batch: expect.objectContaining({ id: batch.id }) });
    for (const igsn of batch.igsns) {
      // Never fetched again: gone (410 with a tombstone, issue 20), as any deactivated sample.
      await http().get(`/api/samples/${igsn}/`).set(owner.auth).expect(410);
      await http().get(`/api/samples/${igsn}/`).set(curator.auth).expect(410);
    }
    const view = (await curation(owner, batch.id).expect(200)).body.data;
    expect(view).toMatchObject({ sample_count: 0, shared_fields: [], columns: [], samples: [] });
    expect((await post(curator, batch.id, 'deactivate', { reason: 'other' }).expect(200)).body.data).toMatchObject({
      deactivated_sample_count: 0,
    });
    const trail = await events(owner, batch.id);
    expect(trail.data).toEqual([
      {
        id: expect.any(Number),
        action: 'deactivate',
        actor_id: owner.userId,
        actor_name: 'Test User',
        from_state: 'draft, published',
        to_state: 'deactivated',
        affected_count: 3,
        reason: 'duplicate igsn',
        comment: 'uploaded twice',
        created_at: expect.any(String),
      },
    ]);
    const [stored] = await db.query<{ reason: string; comment: string }[]>(
      'SELECT deactivate_reason AS reason, deactivate_comment AS comment FROM sample WHERE igsn = $1',
      [batch.igsns[0]],
    );
    expect(stored).toEqual({ reason: 'duplicate igsn', comment: 'uploaded twice' });
  });

  it('validates feedback: limits name the field path, IGSNs must belong to the batch', async () => {
    const batch = await seedBatch(owner, [{ status: 'pending-review' }, { status: 'pending-review' }]);
    const other = await seedBatch(owner, [{ status: 'pending-review' }]);
    const item = { igsn: batch.igsns[0], comment: 'fine' };
    const refused = async (body: object) =>
      (await post(curator, batch.id, 'feedback', body).expect(400)).body as ErrorBody;

    expect(Object.keys((await refused({ general_feedback: 'x'.repeat(10_001) })).errors)).toEqual(['general_feedback']);
    expect(Object.keys((await refused({ sample_feedback: [{ ...item, comment: 'x'.repeat(5001) }] })).errors)).toEqual([
      'sample_feedback.0.comment',
    ]);
    expect(Object.keys((await refused({ sample_feedback: [{ ...item, igsn: 'X'.repeat(61) }] })).errors)).toEqual([
      'sample_feedback.0.igsn',
    ]);
    expect(Object.keys((await refused({ sample_feedback: [{ igsn: batch.igsns[0] }] })).errors)).toEqual([
      'sample_feedback.0.comment',
    ]);
    expect(
      (await refused({ sample_feedback: [item, { igsn: doi(other.igsns[0]), comment: 'not ours' }] })).errors,
    ).toEqual({ 'sample_feedback.1.igsn': [`${doi(other.igsns[0])} is not a sample of batch ${batch.id}`] });
    expect((await refused({ sample_feedback: [{ igsn: 'no/such', comment: 'x' }] })).errors).toEqual({
      'sample_feedback.0.igsn': [`no/such is not a sample of batch ${batch.id}`],
    });
    expect((await refused({})).message).toBe('Give general_feedback, sample_feedback, or both.');
    expect((await refused({ general_feedback: 'ok', colour: 'red' })).errors).toEqual({
      colour: ['This field is not allowed.'],
    });
    expect((await events(owner, batch.id)).count).toBe(0);

    // At the limits it is accepted; the name defaults to the sample's.
    await post(curator, batch.id, 'feedback', {
      general_feedback: 'x'.repeat(10_000),
      sample_feedback: [{ igsn: batch.igsns[1], name: '', comment: 'y'.repeat(5000) }],
    }).expect(200);
    const [stored] = (await curation(owner, batch.id).expect(200)).body.data.feedback;
    expect(stored.sample_feedback).toEqual([
      { igsn: doi(batch.igsns[1]), name: batch.names[1], comment: 'y'.repeat(5000) },
    ]);
  });

  it('notifies the batch owner as their preferences say, readable and markable at /api/users/me/notifications/', async () => {
    const user = await createRegistrant(app);
    const batch = await seedBatch(user, [{ status: 'pending-review' }]);
    const setPreference = (value: string | undefined) =>
      db.query('UPDATE registry_user SET notification_preferences = $2 WHERE id = $1', [
        user.userId,
        value === undefined ? {} : { batch_feedback: value },
      ]);
    const give = (text: string) => post(curator, batch.id, 'feedback', { general_feedback: text }).expect(200);

    await setPreference('none');
    await give('nobody is told');
    expect((await notifications(user)).count).toBe(0);

    await setPreference('email');
    await give('by e-mail');
    await setPreference(undefined);
    await give('in the app');

    const all = await notifications(user);
    expect(all.count).toBe(2);
    expect(all.data.map((n) => [n.channel, n.delivery_status, n.delivered_at === null])).toEqual([
      ['in_app', 'delivered', false],
      ['email', 'pending', true],
    ]);
    expect(all.data[1].body.general_feedback).toBe('by e-mail');
    const [outbox] = await db.query<{ count: string }[]>(
      "SELECT count(*) FROM notification WHERE user_id = $1 AND channel = 'email' AND delivery_status = 'pending'",
      [user.userId],
    );
    expect(outbox.count).toBe('1');

    const newest = all.data[0];
    const read = await http().post(`/api/users/me/notifications/${newest.id}/read/`).set(user.auth).expect(200);
    expect(read.body.data).toMatchObject({ id: newest.id, read_at: expect.any(String) });
    const again = await http().post(`/api/users/me/notifications/${newest.id}/read`).set(user.auth).expect(200);
    expect(again.body.data.read_at).toBe(read.body.data.read_at);
    const unread = await notifications(user, '?unread=true');
    expect(unread.data.map((n) => n.id)).toEqual([all.data[1].id]);

    await http().post(`/api/users/me/notifications/${newest.id}/read/`).set(stranger.auth).expect(404);
    expect((await notifications(stranger)).count).toBe(0);
    const bad = await http().get('/api/users/me/notifications/?unread=maybe').set(user.auth).expect(400);
    expect(bad.body.errors).toEqual({ unread: ['must be true or false'] });
    await http().get('/api/users/me/notifications/').expect(401);
    expect((await events(user, batch.id)).count).toBe(3);
  });

  it('shows shared values once and differing ones per sample, stringified consistently, paginated', async () => {
    const day = (d: number) => new Date(Date.UTC(2026, 4, d));
    const batch = await seedBatch(
      owner,
      [1, 2, 3].map((i) => ({
        status: 'pending-review' as const,
        latitude: 45.5,
        longitude: i === 2 ? -0.00001 : 7,
        columns: {
          elevation: 1250,
          depth_min: i === 3 ? null : 0.5,
          sampling_start_date: day(i),
          material_types: ['Igneous>Plutonic', 'Rock'],
          other_names: i === 1 ? ['A', 'B'] : [],
          locality: i === 3 ? 'Ridge' : '',
          country: 'IS',
        },
      })),
    );
    const view = (await curation(curator, batch.id).expect(200)).body.data;
    expect(view.shared_fields).toEqual([
      { key: 'object_type', label: 'Object Type', value: 'Core' },
      { key: 'registry_code', label: 'Registry Code', value: owner.code },
      { key: 'material_types', label: 'Material Type(s)', value: 'Igneous>Plutonic; Rock' },
      { key: 'latitude', label: 'Latitude (WGS84)', value: '45.5' },
      { key: 'elevation', label: 'Elevation', value: '1250' },
      { key: 'country', label: 'Country', value: 'IS' },
    ]);
    expect(view.columns.map((c: { key: string }) => c.key)).toEqual([
      'name',
      'igsn',
      'other_names',
      'longitude',
      'depth_min',
      'sampling_start_date',
      'locality',
    ]);
    expect(view.samples).toEqual([
      {
        igsn: doi(batch.igsns[0]),
        name: batch.names[0],
        other_names: 'A; B',
        longitude: '7',
        depth_min: '0.5',
        sampling_start_date: '2026-05-01T00:00:00.000Z',
        locality: null,
      },
      {
        igsn: doi(batch.igsns[1]),
        name: batch.names[1],
        other_names: null,
        longitude: '-0.00001',
        depth_min: '0.5',
        sampling_start_date: '2026-05-02T00:00:00.000Z',
        locality: null,
      },
      {
        igsn: doi(batch.igsns[2]),
        name: batch.names[2],
        other_names: null,
        longitude: '7',
        depth_min: null,
        sampling_start_date: '2026-05-03T00:00:00.000Z',
        locality: 'Ridge',
      },
    ]);

    const beyond = (await curation(curator, batch.id, '?page=5&page_size=1').expect(200)).body.data;
    expect(beyond).toMatchObject({ samples: [], sample_count: 3 });
    expect((await curation(curator, batch.id, '?page_size=1001').expect(400)).body).toEqual({
      message: 'Invalid page_size: must be an integer between 1 and 1000.',
      errors: { page_size: ['must be an integer between 1 and 1000'] },
    });
    expect(Object.keys((await curation(curator, batch.id, '?page=0').expect(400)).body.errors)).toEqual(['page']);
    await curation(curator, batch.id, '?page_size=1000').expect(200);
  });
});
