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

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

const PUBLIC_URL = 'https://registry.example.org';

/** Polls until `check` stops throwing (or the time is up, then throws its last error). */
async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

interface SampleJson {
  igsn: string;
  object_type_path: string;
  created_at: string;
  doi: { state: string; updated_at: string | null; error: string | null };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DataCite DOI registration', () => {
  const fake = new FakeDataCite('TEST.REGISTRY', 'secret-password');
  let config: AppConfig;
  let app: INestApplication;
  let worker: INestApplicationContext;
  let owner: Registrant;
  let staff: Awaited<ReturnType<typeof createUserWithToken>>;
  const http = () => request(app.getHttpServer());

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
    await sleep(500);
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
    await sleep(1500);
    expect(fake.requestsFor(sample.igsn)).toEqual([]);
    expect((await fetchSample(sample.igsn)).doi.state).toBe('pending');
    await doiState(sample.igsn, 'findable');
    const [sent] = fake.requestsFor(sample.igsn);
    expect(sent.event).toBe('publish');
    expect(sent.at).toBeGreaterThanOrEqual(Date.parse(until));
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
      await sleep(6000); // longer than a sweep
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
