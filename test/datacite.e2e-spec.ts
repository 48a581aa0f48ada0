import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { runCli } from '../src/cli/commands';
import { AppConfig } from '../src/core/config/app-config';
import { DiscoveryModule } from '@nestjs/core';
import { processorProvider } from '../src/core/queue/queue-processor';
import { BullRegistrar } from '@nestjs/bullmq';
import { CoreModule } from '../src/core/core.module';
import { FEATURE_MODULES } from '../src/feature-modules';
import { DoiDeliveryProcessor } from '../src/modules/datacite/doi-delivery.processor';
import { createRegistrant, createUserWithToken } from './support/auth';
import { FakeDataCite } from './support/fake-datacite';
import { createTestApp } from './support/test-app';
import { prepareDatabase } from '../src/core/database/prepare-database';
import { serverUrls, testConfig, testDatabaseName, testDatabaseUrl, testKeyPrefix } from './support/test-environment';
import { eventually } from './support/eventually';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

const PUBLIC_URL = 'https://registry.example.org';

interface SampleJson {
  id: number;
  igsn: string;
  object_type_path: string;
  created_at: string;
  doi: { state: string; updated_at: string | null; error: string | null };
}

describe('DataCite DOI registration', () => {
  const fake = new FakeDataCite('TEST.REGISTRY', 'secret-password');
  let config: AppConfig;
  let app: INestApplication;
  let worker: INestApplicationContext;
  let owner: Registrant;
  let staff: Awaited<ReturnType<typeof createUserWithToken>>;
  const http = () => request(app.getHttpServer());
  /** Sweeps the worker has completed (they run every few seconds): proof that it looked again. */
  let sweeps = 0;
  const sweepsSoFar = () => sweeps;

  // A database of its own: the outbox is global, and the samples the other suites create meanwhile
  // (tens of thousands in batches) would queue ahead of this suite's.
  const database = `${testDatabaseName()}_datacite`;

  beforeAll(async () => {
    await fake.start();
    const url = new URL(testDatabaseUrl());
    url.pathname = `/${database}`;
    config = testConfig({
      DATABASE_URL: url.toString(),
      REDIS_KEY_PREFIX: `${testKeyPrefix()}-datacite`,
      PUBLIC_URL,
      DATACITE_API_URL: fake.url,
      DATACITE_REPOSITORY_ID: fake.repositoryId,
      DATACITE_PASSWORD: fake.password,
      DATACITE_CONCURRENCY: '3',
      DATACITE_TIMEOUT_MS: '1000',
      // A budget that does not slow these tests (the budget's own are in datacite-scale.e2e-spec.ts).
      DATACITE_REQUESTS_PER_5_MIN: '60000',
      DATACITE_BULK_REQUESTS_PER_5_MIN: '30000',
    });
    await prepareDatabase(config);
    app = await createTestApp({ config });
    // The worker side only: the DOI processor, not the batch or export processors of other suites.
    const moduleRef = await Test.createTestingModule({
      imports: [CoreModule.forRoot(config), DiscoveryModule, ...FEATURE_MODULES],
      providers: [processorProvider(DoiDeliveryProcessor, config)],
    }).compile();
    worker = await moduleRef.init();
    // Consumers are registered by hand (QueueModule), as QueueHandlers does in a full worker.
    worker.get(BullRegistrar).register();
    worker.get(DoiDeliveryProcessor).worker.on('completed', (job) => {
      if (job.name === 'sweep') sweeps++;
    });
    owner = await createRegistrant(app);
    staff = await createUserWithToken(app, { isStaff: true });
  }, 120_000);

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await fake.stop();
    const client = new Client({ connectionString: serverUrls().database });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.end();
  });

  const minimal = (extra: Record<string, unknown> = {}) => ({
    registry_code: owner.code,
    name: `doi-${randomUUID().slice(0, 8)}`,
    object_type: 'Individual sample',
    latitude: 41.5,
    longitude: -72.8,
    ...extra,
  });
  const register = async (extra: Record<string, unknown> = {}) =>
    (await http().post('/api/samples/').set(owner.auth).send(minimal(extra)).expect(201)).body.data as SampleJson;
  const fetchSample = async (igsn: string) =>
    (await http().get(`/api/samples/${igsn}/`).set(owner.auth).expect(200)).body.data as SampleJson;
  const doiState = async (igsn: string, state: string, timeoutMs?: number) =>
    eventually(async () => {
      const sample = await fetchSample(igsn);
      expect(sample.doi.state).toBe(state);
      return sample;
    }, timeoutMs);

  it('publishes a registered sample: the JSON:API document, basic auth, landing URL, findable', async () => {
    const parent = await register({ name: 'Core 7' });
    const sample = await register({
      name: 'Core 7 section 2',
      parent_sample: parent.igsn,
      sample_description: 'Basalt with olivine',
      country: 'US',
      locality: 'Block Island',
    });
    expect(sample.doi.state).toBe('pending');
    const settled = await doiState(sample.igsn, 'findable');
    expect(settled.doi).toEqual({ state: 'findable', updated_at: expect.any(String), error: null });

    const [sent] = fake.requestsFor(sample.igsn);
    const suffix = sample.igsn.split('/')[1];
    expect(sent.event).toBe('publish');
    expect(sent.attributes).toMatchObject({
      doi: sample.igsn,
      url: `${PUBLIC_URL}/samples/${suffix}`,
      types: { resourceTypeGeneral: 'PhysicalObject', resourceType: sample.object_type_path },
      titles: [{ title: 'Core 7 section 2' }, { title: expect.stringContaining('Core 7 section 2') }],
      publisher: 'Sample Registry',
      publicationYear: Number(sample.created_at.slice(0, 4)),
      descriptions: [{ description: 'Basalt with olivine', descriptionType: 'Abstract' }],
      geoLocations: [
        {
          geoLocationPlace: 'Block Island, United States',
          geoLocationPoint: { pointLatitude: 41.5, pointLongitude: -72.8 },
        },
      ],
      relatedIdentifiers: [
        {
          relatedIdentifier: parent.igsn,
          relatedIdentifierType: 'DOI',
          relationType: 'IsPartOf',
          resourceTypeGeneral: 'PhysicalObject',
        },
      ],
    });
    expect(fake.dois.get(sample.igsn)?.state).toBe('findable');
    // The parent's record now lists its child.
    await eventually(() => {
      const latest = fake.requestsFor(parent.igsn).at(-1);
      expect(latest?.attributes.relatedIdentifiers).toEqual([
        expect.objectContaining({ relatedIdentifier: sample.igsn, relationType: 'HasPart' }),
      ]);
    });
    // The DataCite XML download carries the same mapping (same titles and identifier).
    const xml = (await http().get(`/api/samples/${sample.igsn}/?format=datacite`).expect(200)).text;
    expect(xml).toContain(`<identifier identifierType="DOI">${sample.igsn}</identifier>`);
    expect(xml).toContain('<title>Core 7 section 2</title>');
  });

  it('sends updates of a published sample, hides a deactivated one, and never makes drafts findable', async () => {
    const draft = await register({ is_draft: true });
    const published = await register();
    await doiState(published.igsn, 'findable');
    await doiState(draft.igsn, 'pending');
    expect(fake.requestsFor(draft.igsn)).toEqual([]);

    await http().patch(`/api/samples/${published.igsn}/`).set(owner.auth).send({ name: 'Renamed core' }).expect(200);
    await eventually(() =>
      expect(fake.requestsFor(published.igsn).at(-1)?.attributes.titles).toEqual([
        { title: 'Renamed core' },
        expect.any(Object),
      ]),
    );
    await doiState(published.igsn, 'findable');

    await http()
      .post(`/api/samples/${published.igsn}/deactivate/`)
      .set(owner.auth)
      .send({ reason: 'duplicate igsn' })
      .expect(200);
    await eventually(() => expect(fake.requestsFor(published.igsn).at(-1)?.event).toBe('hide'));
    await eventually(() => expect(fake.dois.get(published.igsn)?.state).toBe('registered'));

    await http().patch(`/api/samples/${draft.igsn}/`).set(owner.auth).send({ is_draft: false }).expect(200);
    await doiState(draft.igsn, 'findable');
    expect(fake.requestsFor(draft.igsn).map((sent) => sent.event)).toEqual(['publish']);
  });

  it('retries on 500, on 429 after Retry-After, and after a request that hangs; the problem is visible meanwhile', async () => {
    const mine = (suffix: string) => (doi: string) => doi.endsWith(suffix);
    const igsn = `${config.igsn.doiPrefix}/${owner.code}R${randomUUID().slice(0, 3).toUpperCase()}`;
    fake.answerNext(1, { status: 500, body: { errors: [{ title: 'Internal error' }] } }, mine(igsn));
    fake.answerNext(1, { status: 429, headers: { 'Retry-After': '1' } }, mine(igsn));
    fake.answerNext(1, { status: 0, hang: true }, mine(igsn));
    const sample = await register({ igsn });
    await eventually(async () => {
      const current = await fetchSample(sample.igsn);
      expect(current.doi.state).toBe('pending');
      expect(current.doi.error).toContain('DataCite answered 500');
    });
    // Back-off: ~2 s after the 500, 1 s after the 429, ~8 s after the timeout, each within a 5 s sweep.
    const settled = await doiState(sample.igsn, 'findable', 45_000);
    expect(settled.doi.error).toBeNull();
    const sent = fake.requestsFor(sample.igsn);
    expect(sent).toHaveLength(4);
    // Retry-After: 1 was honoured between the 429 and the next attempt.
    expect(sent[2].at - sent[1].at).toBeGreaterThanOrEqual(900);
  }, 60_000);

  it('marks a sample failed with DataCite’s message on a validation error; staff re-send it', async () => {
    const igsn = `${config.igsn.doiPrefix}/${owner.code}F${randomUUID().slice(0, 3).toUpperCase()}`;
    fake.answerNext(
      1,
      { status: 422, body: { errors: [{ source: 'url', title: 'is not allowed by repository domain settings' }] } },
      (doi) => doi === igsn,
    );
    const sample = await register({ igsn });
    const failed = await doiState(sample.igsn, 'failed');
    expect(failed.doi.error).toBe('DataCite answered 422: url: is not allowed by repository domain settings');
    // A witness instead of a pause: a sample registered after the failure is delivered, so the
    // worker has drained since — and did not send the failed one again.
    await doiState((await register()).igsn, 'findable');
    expect(fake.requestsFor(sample.igsn)).toHaveLength(1);

    await http().post(`/api/samples/${sample.igsn}/doi/sync/`).set(owner.auth).expect(403);
    await http().post(`/api/samples/${owner.code}ZZZZZ/doi/sync/`).set(staff.auth).expect(404);
    await http().post(`/api/samples/${sample.igsn}/doi/sync/`).expect(401);
    const resent = await http().post(`/api/samples/${sample.igsn.toLowerCase()}/doi/sync/`).set(staff.auth).expect(202);
    expect(resent.body.data).toMatchObject({ igsn: sample.igsn, doi: { state: 'pending' } });
    await doiState(sample.igsn, 'findable');

    // All failed ones, from the admin CLI.
    const other = `${config.igsn.doiPrefix}/${owner.code}G${randomUUID().slice(0, 3).toUpperCase()}`;
    fake.answerNext(1, { status: 422, body: { errors: [{ title: 'Invalid' }] } }, (doi) => doi === other);
    await register({ igsn: other });
    await doiState(other, 'failed');
    const lines: string[] = [];
    const code = await runCli(['doi:sync', '--failed'], config, {
      stdout: (l) => lines.push(l),
      stderr: (l) => lines.push(l),
    });
    expect(code).toBe(0);
    expect(JSON.parse(lines[0])).toMatchObject({ resent: expect.any(Number), status: { enabled: true } });
    expect(JSON.parse(lines[0]).resent).toBeGreaterThanOrEqual(1);
    await doiState(other, 'findable');

    const summary = await http().get('/api/datacite/status/').set(staff.auth).expect(200);
    expect(summary.body.data).toMatchObject({
      enabled: true,
      findable: expect.any(Number),
      failed: expect.any(Number),
    });
    await http().get('/api/datacite/status/').set(owner.auth).expect(403);
  }, 45_000);

  it('sends only the latest state when changes pile up', async () => {
    const igsn = `${config.igsn.doiPrefix}/${owner.code}L${randomUUID().slice(0, 3).toUpperCase()}`;
    fake.answerNext(1, { status: 0, hang: true }, (doi) => doi === igsn);
    const sample = await register({ igsn });
    await eventually(() => expect(fake.requestsFor(igsn)).toHaveLength(1));
    for (const name of ['second name', 'third name', 'final name']) {
      await http().patch(`/api/samples/${igsn}/`).set(owner.auth).send({ name }).expect(200);
    }
    await doiState(sample.igsn, 'findable');
    await eventually(() =>
      expect(fake.dois.get(igsn)?.attributes.titles).toEqual([{ title: 'final name' }, expect.any(Object)]),
    );
    // The hung request, then at most one per retry round: never one per change.
    expect(fake.requestsFor(igsn).length).toBeLessThanOrEqual(3);
  }, 30_000);

  it('publishes an embargoed sample when its embargo ends, without anyone touching it', async () => {
    const until = new Date(Date.now() + 3000).toISOString();
    const sample = await register({ publish_date: until });
    await doiState(sample.igsn, 'findable');
    // One request, and not before the embargo ended (the fake records when it was received).
    const sent = fake.requestsFor(sample.igsn);
    expect(sent).toHaveLength(1);
    expect(sent[0].event).toBe('publish');
    expect(sent[0].at).toBeGreaterThanOrEqual(Date.parse(until));
  }, 30_000);

  it('sends nothing before the change commits', async () => {
    const client = new Client({ connectionString: config.database.url });
    await client.connect();
    const suffix = `${owner.code}T${randomUUID().slice(0, 3).toUpperCase()}`;
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, user_owner_id)
         SELECT $1, $2, 'uncommitted', id, 'published', $3 FROM object_type WHERE label = 'Individual sample' LIMIT 1`,
        [suffix, owner.code, owner.userId],
      );
      // A witness instead of a pause: while the insert is uncommitted, a committed sample is
      // registered and delivered, and a sweep runs after it (they run every few seconds, also on
      // the embargo release path). The worker has then looked at the outbox twice since the insert.
      const witness = await register();
      await doiState(witness.igsn, 'findable');
      const sweepsBefore = sweepsSoFar();
      await eventually(() => expect(sweepsSoFar()).toBeGreaterThan(sweepsBefore), 20_000);
      expect(fake.requestsFor(`${config.igsn.doiPrefix}/${suffix}`)).toEqual([]);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    await eventually(() => expect(fake.requestsFor(`${config.igsn.doiPrefix}/${suffix}`)).toHaveLength(1));
  }, 30_000);

  it('delivers a large batch with bounded concurrency, progress visible', async () => {
    const dataSource = app.get(DataSource);
    const tag = `bulk-${randomUUID().slice(0, 6)}`;
    const maxBefore = fake.maxInFlight;
    // One multi-row INSERT, as the batch registration writes.
    await dataSource.query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, user_owner_id, latitude, longitude)
       SELECT $1 || 'B' || lpad(n::text, 3, '0'), $1, $2 || '-' || n, ot.id, 'published', $3, 10, 20
         FROM generate_series(1, 300) n, (SELECT id FROM object_type WHERE label = 'Individual sample' LIMIT 1) ot`,
      [owner.code, tag, owner.userId],
    );
    const progress = await http().get('/api/datacite/status/').set(staff.auth).expect(200);
    expect(progress.body.data.pending).toBeGreaterThan(0);
    await eventually(async () => {
      const [row]: { n: string }[] = await dataSource.query(
        `SELECT count(*) AS n FROM sample s JOIN sample_doi d ON d.sample_id = s.id
          WHERE s.name LIKE $1 AND d.state = 'findable' AND d.version = d.delivered_version`,
        [`${tag}-%`],
      );
      expect(Number(row.n)).toBe(300);
    }, 30_000);
    expect(Math.max(maxBefore, fake.maxInFlight)).toBeLessThanOrEqual(3);
  }, 45_000);

  /** The outbox versions of these samples: a version that moves means the sample is due again. */
  const versions = async (...samples: SampleJson[]) => {
    const rows: { sample_id: string; version: string }[] = await app
      .get(DataSource)
      .query('SELECT sample_id, version FROM sample_doi WHERE sample_id = ANY($1::bigint[])', [
        samples.map((sample) => sample.id),
      ]);
    return Object.fromEntries(
      samples.map((sample) => [sample.igsn, rows.find((row) => Number(row.sample_id) === sample.id)?.version]),
    );
  };
  const latest = (igsn: string) => fake.requestsFor(igsn).at(-1)?.attributes;
  /** The HasPart children of the latest record DataCite received for `igsn`. */
  const hasPart = (igsn: string) =>
    ((latest(igsn)?.relatedIdentifiers ?? []) as { relatedIdentifier: string; relationType: string }[])
      .filter((related) => related.relationType === 'HasPart')
      .map((related) => related.relatedIdentifier);

  it('sends again the samples an agent edit changes, only for what their records carry', async () => {
    const tag = randomUUID().slice(0, 6).toUpperCase();
    const agents = {
      collectors: [
        {
          individual: { label: `Ada Lovelace${tag}`, fname: 'Ada', lname: `Lovelace${tag}` },
          institution: { label: `Institute ${tag}` },
        },
      ],
      platform: { label: `Ship ${tag}`, platform_type: 'Boat' },
      launch_platform: { label: `Launcher ${tag}` },
      current_archive: { label: `Archive ${tag}` },
    };
    const published = await register(agents);
    const draft = await register({ ...agents, is_draft: true });
    const unrelated = await register();
    await doiState(published.igsn, 'findable');
    await doiState(unrelated.igsn, 'findable');
    const full = (await http().get(`/api/samples/${published.igsn}/`).set(owner.auth).expect(200)).body.data;
    const ids = {
      individual: full.collectors[0].individual.id as number,
      institution: full.collectors[0].institution.id as number,
      platform: full.platform.id as number,
      launchPlatform: full.launch_platform.id as number,
      archive: full.current_archive.id as number,
    };
    const start = await versions(published, draft, unrelated);

    const patch = (path: string, edit: Record<string, string>) =>
      http().patch(path).set(staff.auth).send(edit).expect(200);

    // Columns no DataCite record carries: nothing is due.
    await patch(`/api/individuals/${ids.individual}/`, { email: 'ada@example.org' });
    await patch(`/api/institutions/${ids.institution}/`, { city: 'Paris' });
    await patch(`/api/archives/${ids.archive}/`, { description: 'Cold store' });
    expect(await versions(published, draft, unrelated)).toEqual(start);

    // Each edit of what the record carries makes the published sample due in the same request,
    // whatever the table; the draft (DataCite has none of it) and the unrelated sample stay as they were.
    let previous = start[published.igsn];
    const dueAgain = async () => {
      const now = await versions(published, draft, unrelated);
      expect(BigInt(now[published.igsn]!)).toBeGreaterThan(BigInt(previous!));
      expect(now[draft.igsn]).toBe(start[draft.igsn]);
      expect(now[unrelated.igsn]).toBe(start[unrelated.igsn]);
      previous = now[published.igsn];
    };
    await patch(`/api/individuals/${ids.individual}/`, { lname: `Byron${tag}` });
    await dueAgain();
    await patch(`/api/institutions/${ids.institution}/`, { label: `College ${tag}` });
    await dueAgain();
    await patch(`/api/archives/${ids.archive}/`, { label: `Vault ${tag}` });
    await dueAgain();
    await patch(`/api/platforms/${ids.platform}/`, { label: `Boat ${tag}` });
    await dueAgain();
    // Written directly: the trigger follows the table, whoever writes it.
    await app
      .get(DataSource)
      .query('UPDATE launch_platform SET label = $1 WHERE id = $2', [`Rocket ${tag}`, ids.launchPlatform]);
    await dueAgain();

    await eventually(() => {
      const record = latest(published.igsn);
      expect(record?.creators).toEqual([
        expect.objectContaining({ name: `Byron${tag}, Ada`, affiliation: [{ name: `College ${tag}` }] }),
      ]);
      expect(record?.contributors).toEqual([
        { name: `Vault ${tag}`, nameType: 'Organizational', contributorType: 'HostingInstitution' },
      ]);
      expect(record?.descriptions).toEqual(
        expect.arrayContaining([
          { description: `Platform: Boat ${tag} (Boat)`, descriptionType: 'Other' },
          { description: `Launch platform: Rocket ${tag}`, descriptionType: 'Other' },
        ]),
      );
    });
    expect(fake.requestsFor(draft.igsn)).toEqual([]);
  }, 30_000);

  it('sends a parent again when a child starts or stops being public under it, also when an embargo ends', async () => {
    const first = await register({ name: 'Parent one' });
    const second = await register({ name: 'Parent two' });
    await doiState(first.igsn, 'findable');
    await doiState(second.igsn, 'findable');
    const start = await versions(first);

    // Neither an embargoed nor a draft child changes the parent's record yet.
    const until = new Date(Date.now() + 3000).toISOString();
    const child = await register({ name: 'Embargoed child', parent_sample: first.igsn, publish_date: until });
    await register({ name: 'Draft child', parent_sample: first.igsn, is_draft: true });
    expect(await versions(first)).toEqual(start);

    // The sweep that publishes the child sends the parent too, now listing it.
    await eventually(() => expect(hasPart(first.igsn)).toEqual([child.igsn]), 20_000);
    expect(fake.requestsFor(first.igsn).at(-1)!.at).toBeGreaterThanOrEqual(Date.parse(until));

    // Moved while public: both parents.
    await http().patch(`/api/samples/${child.igsn}/`).set(owner.auth).send({ parent_sample: second.igsn }).expect(200);
    await eventually(() => {
      expect(hasPart(first.igsn)).toEqual([]);
      expect(hasPart(second.igsn)).toEqual([child.igsn]);
    });

    // Embargoed again, then public again, then deactivated.
    await http()
      .patch(`/api/samples/${child.igsn}/`)
      .set(owner.auth)
      .send({ publish_date: '2099-01-01T00:00:00Z' })
      .expect(200);
    await eventually(() => expect(hasPart(second.igsn)).toEqual([]));
    await http()
      .patch(`/api/samples/${child.igsn}/`)
      .set(owner.auth)
      .send({ publish_date: new Date(Date.now() - 60_000).toISOString() })
      .expect(200);
    await eventually(() => expect(hasPart(second.igsn)).toEqual([child.igsn]));
    await http().post(`/api/samples/${child.igsn}/deactivate/`).set(owner.auth).send({ reason: 'other' }).expect(200);
    await eventually(() => expect(hasPart(second.igsn)).toEqual([]));
  }, 45_000);

  it('takes a sample published now as public now: no embargo left for the sweep, its parent due at once', async () => {
    const parent = await register({ name: 'Parent four' });
    const before = await versions(parent);
    // publish_date is taken in the request, after the transaction began: not an embargo.
    const child = await register({ name: 'Child four', parent_sample: parent.igsn });
    const [row]: { embargo_until: Date | null }[] = await app
      .get(DataSource)
      .query('SELECT embargo_until FROM sample_doi WHERE sample_id = $1', [child.id]);
    expect(row.embargo_until).toBeNull();
    expect(BigInt((await versions(parent))[parent.igsn]!)).toBeGreaterThan(BigInt(before[parent.igsn]!));
  });

  it('sends the parent of a child edited after its embargo ended but before the sweep released it', async () => {
    const parent = await register({ name: 'Parent three' });
    const child = await register({ name: 'Child three', parent_sample: parent.igsn });
    await doiState(child.igsn, 'findable');
    const client = new Client({ connectionString: config.database.url });
    await client.connect();
    const parentVersion = async () =>
      (await client.query('SELECT version FROM sample_doi WHERE sample_id = $1', [parent.id])).rows[0]
        .version as string;
    try {
      await client.query('BEGIN');
      // Released, as the outbox stands once any embargo the child had is over and seen by the sweep.
      await client.query('UPDATE sample_doi SET embargo_until = NULL WHERE sample_id = $1', [child.id]);
      const start = await parentVersion();
      // An edit of a public child that stays where it was changes nothing in the parent's record.
      await client.query("UPDATE sample SET name = 'Child three, renamed' WHERE id = $1", [child.id]);
      expect(await parentVersion()).toBe(start);
      // The outbox as it stands between an embargo's end and the sweep: the embargo still recorded.
      await client.query("UPDATE sample_doi SET embargo_until = now() - interval '1 second' WHERE sample_id = $1", [
        child.id,
      ]);
      await client.query("UPDATE sample SET name = 'Child three, again' WHERE id = $1", [child.id]);
      expect(BigInt(await parentVersion())).toBeGreaterThan(BigInt(start));
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });

  it('gives every public address of a sample from PUBLIC_URL, whatever Host the request names', async () => {
    const sample = await register();
    const suffix = sample.igsn.split('/')[1];
    const address = `${PUBLIC_URL}/samples/${suffix}`;
    const host = 'mirror.example:8443';
    await doiState(sample.igsn, 'findable');
    expect(latest(sample.igsn)?.url).toBe(address);

    const page = (await http().get(`/samples/${suffix}`).set('Host', host).expect(200)).text;
    expect(page).toContain(`<link rel="canonical" href="${address}">`);
    const embedded = JSON.parse(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)![1]);
    expect(embedded.url).toBe(address);
    const jsonLd = await http().get(`/api/samples/${suffix}/?format=jsonld`).set('Host', host).expect(200);
    expect(JSON.parse(jsonLd.text).url).toBe(address);
    const sitemap = (await http().get('/sitemap.xml').set('Host', host).expect(200)).text;
    expect(sitemap).toContain(`<loc>${address}</loc>`);
    expect(sitemap).not.toContain(host);
  });

  it('says "disabled" and refuses re-sending when DataCite is not configured', async () => {
    const plain = await createTestApp({ config: testConfig({ DATABASE_URL: config.database.url }) });
    try {
      const created = await request(plain.getHttpServer())
        .post('/api/samples/')
        .set(owner.auth)
        .send(minimal())
        .expect(201);
      expect(created.body.data.doi).toEqual({ state: 'disabled', updated_at: null, error: null });
      const refused = await request(plain.getHttpServer())
        .post(`/api/samples/${created.body.data.igsn}/doi/sync/`)
        .set(staff.auth)
        .expect(409);
      expect(refused.body).toEqual({ message: expect.stringContaining('not configured'), errors: {} });
    } finally {
      await plain.close();
    }
  });
});
