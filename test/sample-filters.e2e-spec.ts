import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { sql, raw } from '../src/core/database/sql';
import {
  OTHER_NAMES_TEXT,
  SampleFilters,
  SampleSearchRepository,
} from '../src/modules/samples/sample-search.repository';
import { createRegistrant } from './support/auth';
import { createTestApp } from './support/test-app';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { waitForJob } from './support/jobs';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Sample = { igsn: string; name: string; [field: string]: unknown };

/** A valid ORCID iD (checksum included) unique to this run, so other suites' collectors never match. */
function uniqueOrcid(): string {
  const digits = String(Math.floor(Math.random() * 1e15)).padStart(15, '0');
  let total = 0;
  for (const digit of digits) total = (total + Number(digit)) * 2;
  const check = (12 - (total % 11)) % 11;
  const all = `${digits}${check === 10 ? 'X' : String(check)}`;
  return all.match(/.{4}/g)!.join('-');
}

/**
 * The search filters of issue 13 ("Data you can trust") on GET /api/samples/ and the export: an
 * unknown parameter is a 400 naming it (never the whole catalogue), every filter narrows the result
 * to exactly the samples it names, and each has an index to start from.
 */
describe('sample search filters', () => {
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  let owner: Registrant;
  let other: Registrant;
  const tag = randomUUID().slice(0, 8);
  const orcid = uniqueOrcid();
  const s: Record<'ireland' | 'fiji' | 'child' | 'draftChild' | 'other' | 'old', Sample> = {} as never;
  const http = () => request(app.getHttpServer());

  const names = (res: request.Response): string[] =>
    (res.body.data as Sample[]).map((sample) => sample.name.slice(tag.length + 1)).sort();
  /** The anonymous search, limited to this suite's samples. */
  const search = async (query: string, who?: { auth: { Authorization: string } }) => {
    const req = http().get(`/api/samples/?q=${tag}&page_size=100&${query}`);
    const res = await (who ? req.set(who.auth) : req);
    expect({ query, status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
      query,
      status: 200,
      body: undefined,
    });
    return res;
  };
  const refused = async (query: string, who?: { auth: { Authorization: string } }) => {
    const req = http().get(`/api/samples/?${query}`);
    const res = await (who ? req.set(who.auth) : req);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    return res.body as { message: string; errors: Record<string, string[]> };
  };

  beforeAll(async () => {
    const starting = startWorkerProcess();
    app = await createTestApp();
    [owner, other] = await Promise.all([createRegistrant(app), createRegistrant(app)]);
    const register = async (who: Registrant, body: Record<string, unknown>): Promise<Sample> => {
      const res = await http()
        .post('/api/samples/')
        .set(who.auth)
        .send({ registry_code: who.code, object_type: 'Core', ...body, name: `${tag}-${body.name as string}` });
      expect(res.status).toBe(201);
      return res.body.data as Sample;
    };
    s.ireland = await register(owner, {
      name: 'ireland',
      latitude: 53.35,
      longitude: -6.26,
      other_names: [`Granite alias ${tag}`],
      collectors: [{ individual: { label: `Zoë ${tag} Ångström`, individual_uri: `https://orcid.org/${orcid}` } }],
      sampling_start_date: '2020-05-01',
      sampling_end_date: '2020-05-03',
    });
    s.fiji = await register(owner, {
      name: 'fiji',
      latitude: -17.7,
      longitude: 179.5,
      collectors: [{ institution: { label: `Institute of Reefs ${tag}` } }],
      sampling_start_date: '2019-12-30',
      sampling_end_date: '2020-01-02',
    });
    s.child = await register(owner, {
      name: 'child',
      latitude: 10,
      longitude: -179.5,
      parent_sample: s.ireland.igsn,
      sampling_start_date: '2021-07-01T10:00:00Z',
    });
    s.draftChild = await register(owner, { name: 'draft-child', parent_sample: s.ireland.igsn, is_draft: true });
    s.other = await register(other, { name: 'other', latitude: 0, longitude: 0 });
    s.old = await register(other, { name: 'old', latitude: 1, longitude: 1 });
    await app
      .get(DataSource)
      .query("UPDATE sample SET created_at = '2001-06-15T10:00:00Z' WHERE igsn = $1", [s.old.igsn.split('/')[1]]);
    worker = await starting;
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
  });

  describe('unknown parameters', () => {
    it('answers 400 naming every unknown parameter instead of returning the whole catalogue', async () => {
      const body = await refused(`q=${tag}&registry=${owner.code}&colour=red&page_size=5`);
      expect(body).toEqual({
        message: 'Unknown query parameters: registry, colour.',
        errors: { registry: ['is not a search parameter'], colour: ['is not a search parameter'] },
      });
      expect(await refused('collecter=Ada', owner)).toEqual({
        message: 'Unknown query parameter: collecter.',
        errors: { collecter: ['is not a search parameter'] },
      });
      // Every documented parameter is known (empty values filter nothing).
      const all = await search(
        'name=&igsn=&object_type=&country=&scope=public&is_draft=false&registry_code=&parent=&collector=&bbox=' +
          '&sampling_date_from=&sampling_date_to=&created_from=&created_to=&page=1',
      );
      expect(names(all)).toEqual(['child', 'fiji', 'ireland', 'old', 'other']);
    });
  });

  describe('filters', () => {
    it('registry_code: one or several codes, any case; an unknown code is a 400', async () => {
      expect(names(await search(`registry_code=${other.code.toLowerCase()}`))).toEqual(['old', 'other']);
      expect(names(await search(`registry_code=${owner.code}, ${other.code}`))).toHaveLength(5);
      expect((await refused('registry_code=ZZ9ZZ')).errors).toEqual({
        registry_code: ['"ZZ9ZZ" is not a registry code'],
      });
    });

    it('parent: the children the caller may see, by DOI form or suffix in any case', async () => {
      const suffix = s.ireland.igsn.split('/')[1];
      for (const parent of [s.ireland.igsn, suffix.toLowerCase()]) {
        expect(names(await search(`parent=${encodeURIComponent(parent)}`))).toEqual(['child']);
      }
      expect(names(await search(`parent=${suffix}`, owner))).toEqual(['child', 'draft-child']);
      expect(names(await search(`parent=${s.child.igsn}`))).toEqual([]);
    });

    it('parent: a hidden sample and a missing one get the same 400', async () => {
      const hidden = s.draftChild.igsn.split('/')[1];
      const missing = `${owner.code}ZZZZZZ`;
      const errors = async (igsn: string) => (await refused(`parent=${igsn}`)).errors.parent;
      expect(await errors(hidden)).toEqual([`no sample ${hidden} that you may see`]);
      expect(await errors(missing)).toEqual([`no sample ${missing} that you may see`]);
      expect(await errors('not an igsn!')).toEqual(['no sample not an igsn! that you may see']);
      // Its owner sees the draft, and its (no) children.
      expect(names(await search(`parent=${hidden}`, owner))).toEqual([]);
    });

    it('collector: by ORCID iD, bare or as URL, or by part of a person or institution name', async () => {
      for (const value of [orcid, orcid.toLowerCase(), `https://orcid.org/${orcid}`, `http://orcid.org/${orcid}/`]) {
        expect(names(await search(`collector=${encodeURIComponent(value)}`))).toEqual(['ireland']);
      }
      expect(names(await search(`collector=${encodeURIComponent(`zoe ${tag} angstr`)}`))).toEqual(['ireland']);
      expect(names(await search(`collector=${encodeURIComponent(`reefs ${tag}`)}`))).toEqual(['fiji']);
      expect(names(await search('collector=0000-0001-5109-3700'))).toEqual([]);
      expect(names(await search('collector=%25'))).toEqual([]);
      expect((await refused(`collector=${'x'.repeat(256)}`)).errors).toEqual({
        collector: ['must be at most 255 characters'],
      });
    });

    it('bbox: inclusive bounds, across the antimeridian when minLon > maxLon; bad boxes are 400s', async () => {
      expect(names(await search('bbox=-11,51,-5,56'))).toEqual(['ireland']);
      expect(names(await search('bbox=-6.26,53.35,-6.26,53.35'))).toEqual(['ireland']);
      expect(names(await search('bbox=179,-20,-179,15'))).toEqual(['child', 'fiji']);
      expect(names(await search('bbox=-180,-90,180,90'))).toEqual(['child', 'fiji', 'ireland', 'old', 'other']);
      for (const bbox of ['1,2,3', 'a,b,c,d', '0,10,1,5', '-181,0,0,1', '0,-91,1,0', '1,2,3,4,5', '0x1,0,1,1']) {
        expect(Object.keys((await refused(`bbox=${bbox}`)).errors)).toEqual(['bbox']);
      }
    });

    it('sampling dates: periods overlapping the range, bounds as whole years, months or days', async () => {
      const range = (query: string) => search(query).then(names);
      expect(await range('sampling_date_from=2020&sampling_date_to=2020')).toEqual(['fiji', 'ireland']);
      expect(await range('sampling_date_from=2021')).toEqual(['child']);
      expect(await range('sampling_date_to=2019')).toEqual(['fiji']);
      expect(await range('sampling_date_to=2019-12-29')).toEqual([]);
      expect(await range('sampling_date_from=2020-05&sampling_date_to=2020-05')).toEqual(['ireland']);
      expect(await range('sampling_date_from=2020-05-03T00:00:00Z')).toEqual(['child', 'ireland']);
      expect(await range('sampling_date_from=2020-05-03T00:00:01Z')).toEqual(['child']);
      expect(await range('sampling_date_to=2021-07-01T12:00:00%2B02:00')).toEqual(['child', 'fiji', 'ireland']);
      expect(await range('sampling_date_to=2021-07-01T11:59:59%2B02:00')).toEqual(['fiji', 'ireland']);
      for (const value of ['2020-13', '2020-02-30', '20200101', 'yesterday', '2020-05-03T10:00']) {
        expect((await refused(`sampling_date_from=${value}`)).errors).toHaveProperty('sampling_date_from');
      }
      expect((await refused('sampling_date_from=2021&sampling_date_to=2020')).errors).toEqual({
        sampling_date_from: ['must not be after sampling_date_to'],
      });
    });

    it('created_from and created_to: the registration date, whole days included', async () => {
      expect(names(await search('created_to=2001-06-15'))).toEqual(['old']);
      expect(names(await search('created_from=2001-06-15&created_to=2001-06-15'))).toEqual(['old']);
      expect(names(await search('created_from=2001-06-16'))).toEqual(['child', 'fiji', 'ireland', 'other']);
      expect(names(await search('created_to=2001-06-15T09:59:59Z'))).toEqual([]);
      expect((await refused('created_to=15/06/2001')).errors).toHaveProperty('created_to');
    });

    it('q also searches other names, case-insensitively; name does not', async () => {
      const res = await http()
        .get(`/api/samples/?q=${encodeURIComponent(`GRANITE ALIAS ${tag}`)}`)
        .expect(200);
      expect(res.body).toMatchObject({ count: 1, count_exact: true });
      expect(res.body.data[0].igsn).toBe(s.ireland.igsn);
      const byName = await http().get(`/api/samples/?name=${encodeURIComponent(`granite alias ${tag}`)}`);
      expect(byName.body.count).toBe(0);
    });

    it('combines filters with AND and counts the matches exactly', async () => {
      const res = await http()
        .get(`/api/samples/?registry_code=${owner.code}&bbox=-180,-90,180,90&sampling_date_from=2020&page_size=1`)
        .expect(200);
      expect(res.body).toMatchObject({ count: 3, count_exact: true, total_pages: 3 });
      expect(names(res)).toEqual(['child']);
    });
  });

  describe('exports', () => {
    const exportRequest = (query: string, body: Record<string, unknown>) =>
      http().post(`/api/samples/export/?${query}`).set(owner.auth).send(body);

    it('refuses unknown parameters and bad filter values, in the query string or the body', async () => {
      for (const [query, body, field] of [
        ['colour=red', {}, 'colour'],
        ['', { collecter: 'Ada' }, 'collecter'],
        ['bbox=1,2,3', {}, 'bbox'],
        ['', { sampling_date_from: '2020-13' }, 'sampling_date_from'],
        ['', { registry_code: 'ZZ9ZZ' }, 'registry_code'],
        ['', { parent: 'IEZZZZZZZZZ' }, 'parent'],
        ['', { bbox: [1, 2, 3, 4] }, 'bbox'],
      ] as const) {
        const res = await exportRequest(query, body);
        expect({ query, body, status: res.status }).toEqual({ query, body, status: 400 });
        expect(Object.keys(res.body.errors)).toEqual([field]);
      }
    });

    it('exports exactly what the same filters find', async () => {
      const queued = await exportRequest(`bbox=-180,-90,180,90&collector=${orcid}`, {
        registry_code: ` ${owner.code.toLowerCase()} , `,
        sampling_date_from: '2020',
        format: 'csv',
      }).expect(202);
      const jobId = queued.body.data.job_id as string;
      const job = await waitForJob<{
        status: string;
        payload: { query: Record<string, string> };
        result: { sample_count: number };
      }>(app, owner, jobId);
      expect(job.payload.query).toEqual({
        bbox: '-180,-90,180,90',
        collector: orcid,
        registry_code: owner.code.toLowerCase(),
        sampling_date_from: '2020',
        scope: 'personal',
      });
      expect(job).toMatchObject({ status: 'completed', result: { sample_count: 1 } });
      const file = await http().get(`/api/jobs/${jobId}/download/`).set(owner.auth).expect(200);
      expect(file.text).toContain(s.ireland.igsn);
      expect(file.text).not.toContain(s.fiji.igsn);
    });
  });

  describe('indexes', () => {
    /** The plan of the ids of `filters` alone, with sequential scans priced out: which index serves it. */
    type PlannedFilters = SampleFilters | { otherNames: string } | { collector: { orcid: string } | { name: string } };
    async function planOf(filters: PlannedFilters): Promise<string> {
      const repository = app.get(SampleSearchRepository);
      let condition;
      if ('otherNames' in filters) condition = sql`${raw(OTHER_NAMES_TEXT)} LIKE ${`%${filters.otherNames}%`}`;
      else if ('collector' in filters) {
        // As the search does it: the collectors first, then their samples.
        const collectorIds = await repository.collectorIdsMatching(filters.collector);
        expect(collectorIds).toHaveLength(1);
        condition = repository.filterCondition({ collectorIds });
      } else condition = repository.filterCondition(filters);
      const { text, values } = sql`EXPLAIN SELECT s.id FROM sample s WHERE ${condition}`.toQuery();
      return app.get(DataSource).transaction(async (manager) => {
        await manager.query('SET LOCAL enable_seqscan = off');
        const rows = await manager.query<{ 'QUERY PLAN': string }[]>(text, values);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    }

    it.each<[string, PlannedFilters, RegExp]>([
      ['registry_code', { registryCodes: ['IEABC'] }, /idx_sample_registry_code/],
      ['parent', { parentId: '1' }, /idx_sample_parent/],
      ['collector by name', { collector: { name: `${tag} ångström` } }, /idx_sample_collector_collector/],
      ['collector by ORCID', { collector: { orcid } }, /idx_sample_collector_collector/],
      ['bbox', { bbox: { minLon: -11, minLat: 51, maxLon: -5, maxLat: 56 } }, /idx_sample_(latitude|longitude)/],
      [
        'bbox across 180°',
        { bbox: { minLon: 179, minLat: -20, maxLon: -179, maxLat: 15 } },
        /idx_sample_(latitude|longitude)/,
      ],
      [
        'sampling dates',
        { sampling: { from: new Date('2020-01-01'), to: new Date('2021-01-01') } },
        /idx_sample_sampling_period/,
      ],
      // A bound that selects few rows: one that selects every row may be read through any index holding
      // created_at (idx_sample_user_owner, as a bitmap), a tie the planner breaks by index size.
      ['created dates', { created: { from: new Date('2100-01-01') } }, /idx_sample_(newest|public|registry_code)/],
      ['q on other names', { otherNames: 'granite' }, /idx_sample_other_names_trgm/],
    ])('%s is served by an index, never a scan of every sample', async (_name, filters, index) => {
      const plan = await planOf(filters);
      expect(plan).toMatch(index);
      expect(plan).not.toMatch(/Seq Scan on sample\b/);
    });
  });
});
