import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { parseStringPromise } from 'xml2js';
import { validateXML } from 'xmllint-wasm';
import { oaiPmhSchema } from './fixtures/fixtures';
import { createRegistrant } from './support/auth';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

type Node = { _?: string; $?: Record<string, string> } & { [child: string]: Node[] | string | Record<string, string> };

const PAGE_SIZE = 100;
/** Samples in the harvested set before the harvest starts. */
const PREFILLED = 1000;

/** All documents of a run validated at once (each xmllint run starts a worker). */
async function schemaErrors(documents: string[]): Promise<string[]> {
  const result = await validateXML({
    xml: documents.map((contents, index) => ({ fileName: `answer-${index}.xml`, contents })),
    ...oaiPmhSchema(),
  });
  return result.valid ? [] : result.errors.map((error) => error.rawMessage);
}

const children = (node: Node | undefined, name: string): Node[] => (node?.[name] as Node[] | undefined) ?? [];
const text = (node: Node | undefined, name: string): string | undefined => {
  const child = children(node, name)[0];
  return typeof child === 'string' ? child : child?._;
};

describe('OAI-PMH (/oai)', () => {
  let app: INestApplication;
  let owner: Awaited<ReturnType<typeof createRegistrant>>;
  const answers: string[] = [];
  const http = () => request(app.getHttpServer());

  /** GET /oai with the arguments; the parsed OAI-PMH element (the raw answer is kept for the schema check). */
  async function oai(query: Record<string, string>): Promise<Node> {
    const res = await http().get('/oai').query(query).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/xml; charset=utf-8/);
    answers.push(res.text);
    const document = (await parseStringPromise(res.text, { explicitCharkey: true })) as { 'OAI-PMH': Node };
    return document['OAI-PMH'];
  }

  const errorOf = (answer: Node) => {
    const [error] = children(answer, 'error');
    return error && { code: error.$?.code, message: error._ };
  };

  const register = async (body: Record<string, unknown>) =>
    (
      await http()
        .post('/api/samples/')
        .set(owner.auth)
        .send({ registry_code: owner.code, object_type: 'Core', latitude: 1, longitude: 2, ...body })
        .expect(201)
    ).body.data as { igsn: string };

  let published: { igsn: string };
  let child: { igsn: string };
  let draft: { igsn: string };
  let embargoed: { igsn: string };
  let retired: { igsn: string };

  beforeAll(async () => {
    app = await createTestApp({ config: testConfig({ OAI_PAGE_SIZE: String(PAGE_SIZE) }) });
    owner = await createRegistrant(app);
    // The prefilled samples are written in one statement (the registration path is tested elsewhere);
    // their IGSNs use counters far above what minting hands out first, and minting skips stored ones.
    await app.get(DataSource).query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, publish_date,
                           user_owner_id, created_by, created_at, updated_at, latitude, longitude)
       SELECT $1 || 'Z' || lpad(upper(to_hex(n)), 3, '0'), $1, 'Prefilled ' || n,
              (SELECT id FROM object_type WHERE label = 'Core'), 'published', now() - interval '1 day',
              $2, $2, now() - interval '1 day', now() - (n || ' seconds')::interval, 10, 20
         FROM generate_series(1, $3) AS n`,
      [owner.code, owner.userId, PREFILLED],
    );
    published = await register({
      name: 'OAI basalt',
      sample_description: 'A basalt <core> & more',
      collectors: [{ individual: { label: 'Marie Tharp' } }],
    });
    child = await register({ name: 'OAI basalt, split A', parent_sample: published.igsn });
    draft = await register({ name: 'OAI draft', is_draft: true });
    embargoed = await register({ name: 'OAI embargoed', publish_date: '2999-01-01T00:00:00Z' });
    retired = await register({ name: 'OAI retired' });
    await http()
      .post(`/api/samples/${retired.igsn}/deactivate/`)
      .set(owner.auth)
      .send({ reason: 'duplicate igsn' })
      .expect(200);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('answers Identify, ListMetadataFormats and ListSets', async () => {
    const identify = children(await oai({ verb: 'Identify' }), 'Identify')[0];
    expect(text(identify, 'protocolVersion')).toBe('2.0');
    expect(text(identify, 'deletedRecord')).toBe('persistent');
    expect(text(identify, 'granularity')).toBe('YYYY-MM-DDThh:mm:ssZ');
    expect(text(identify, 'baseURL')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oai$/);

    const formats = children(
      children(await oai({ verb: 'ListMetadataFormats' }), 'ListMetadataFormats')[0],
      'metadataFormat',
    );
    expect(formats.map((format) => text(format, 'metadataPrefix'))).toEqual(['oai_dc', 'oai_datacite']);

    const sets = children(children(await oai({ verb: 'ListSets' }), 'ListSets')[0], 'set');
    expect(sets.map((set) => text(set, 'setSpec'))).toContain(owner.code);
  });

  it('harvests 1,000+ records in pages with resumption tokens while samples are added, each page schema-valid', async () => {
    const seen: string[] = [];
    const added: string[] = [];
    let answer = await oai({ verb: 'ListRecords', metadataPrefix: 'oai_dc', set: owner.code });
    let pages = 0;
    for (;;) {
      pages += 1;
      const list = children(answer, 'ListRecords')[0];
      expect(list).toBeDefined();
      const records = children(list, 'record');
      expect(records.length).toBeLessThanOrEqual(PAGE_SIZE);
      const [token] = children(list, 'resumptionToken');
      expect(Number(token.$?.cursor)).toBe(seen.length);
      for (const record of records) seen.push(text(children(record, 'header')[0], 'identifier') as string);
      // Samples registered while the harvest runs come after every page already handed out.
      if (pages === 1 || pages === 5) {
        for (let i = 0; i < 3; i++) added.push((await register({ name: `Added during harvest ${pages}-${i}` })).igsn);
      }
      const next = token._;
      if (!next) break;
      answer = await oai({ verb: 'ListRecords', resumptionToken: next });
    }
    const expected = [published, child, retired].map((sample) => `doi:${sample.igsn}`);
    expect(new Set(seen).size).toBe(seen.length); // nothing twice
    expect(seen.length).toBe(PREFILLED + expected.length + added.length);
    expect(seen).toEqual(expect.arrayContaining([...expected, ...added.map((igsn) => `doi:${igsn}`)]));
    for (const hidden of [draft, embargoed]) expect(seen).not.toContain(`doi:${hidden.igsn}`);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(PREFILLED / PAGE_SIZE));
    expect(await schemaErrors(answers.slice(-pages))).toEqual([]);
  }, 180_000);

  it('serves oai_datacite (DataCite 4.6) and deleted records by GetRecord and ListIdentifiers', async () => {
    const record = children(
      children(
        await oai({ verb: 'GetRecord', identifier: `doi:${published.igsn}`, metadataPrefix: 'oai_datacite' }),
        'GetRecord',
      )[0],
      'record',
    )[0];
    const resource = children(children(record, 'metadata')[0], 'resource')[0];
    expect(text(resource, 'identifier')).toBe(published.igsn);
    const related = children(children(resource, 'relatedIdentifiers')[0], 'relatedIdentifier');
    expect(related.map((node) => [node._, node.$?.relationType])).toContainEqual([child.igsn, 'HasPart']);

    const deleted = children(
      children(
        await oai({ verb: 'GetRecord', identifier: `doi:${retired.igsn}`, metadataPrefix: 'oai_dc' }),
        'GetRecord',
      )[0],
      'record',
    )[0];
    expect(children(deleted, 'header')[0].$).toEqual({ status: 'deleted' });
    expect(children(deleted, 'metadata')).toEqual([]);

    const headers = children(
      children(
        await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_datacite', set: owner.code }),
        'ListIdentifiers',
      )[0],
      'header',
    );
    expect(headers).toHaveLength(PAGE_SIZE);
    expect(await schemaErrors(answers.slice(-3))).toEqual([]);
  });

  it('selects by from/until on the last change, inclusive, at either granularity', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const list = async (query: Record<string, string>) => {
      const answer = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: owner.code, ...query });
      return errorOf(answer)?.code ?? children(children(answer, 'ListIdentifiers')[0], 'header').length;
    };
    expect(await list({ from: '2999-01-01' })).toBe('noRecordsMatch');
    expect(await list({ until: '2000-01-01T00:00:00Z' })).toBe('noRecordsMatch');
    expect(await list({ from: today, until: today })).toBeGreaterThan(0);
    // Patching a sample makes it a change of now: an incremental harvest from a minute ago finds it.
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 19) + 'Z';
    await http().patch(`/api/samples/${published.igsn}/`).set(owner.auth).send({ purpose: 'harvest test' }).expect(200);
    const recent = children(
      children(
        await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: owner.code, from: since }),
        'ListIdentifiers',
      )[0],
      'header',
    ).map((header) => text(header, 'identifier'));
    expect(recent).toContain(`doi:${published.igsn}`);
    expect(recent.length).toBeLessThan(PREFILLED);
  });

  it.each([
    [{}, 'badVerb'],
    [{ verb: 'ListEverything' }, 'badVerb'],
    [{ verb: 'ListRecords' }, 'badArgument'],
    [{ verb: 'Identify', colour: 'red' }, 'badArgument'],
    [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', resumptionToken: 'abc' }, 'badArgument'],
    [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2024-13-01' }, 'badArgument'],
    [
      { verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2024-01-01', until: '2024-02-01T00:00:00Z' },
      'badArgument',
    ],
    [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2024-02-01', until: '2024-01-01' }, 'badArgument'],
    [{ verb: 'ListRecords', metadataPrefix: 'marc21' }, 'cannotDisseminateFormat'],
    [{ verb: 'ListRecords', resumptionToken: 'not-a-token' }, 'badResumptionToken'],
    [{ verb: 'GetRecord', identifier: 'doi:10.5072/NOSUCH0001', metadataPrefix: 'oai_dc' }, 'idDoesNotExist'],
    [{ verb: 'ListSets', resumptionToken: 'x' }, 'badResumptionToken'],
  ])('answers %j with the OAI error %s', async (query, code) => {
    const answer = await oai(query);
    expect(errorOf(answer)?.code).toBe(code);
    const echoed = children(answer, 'request')[0].$ ?? {};
    if (code === 'badVerb' || code === 'badArgument') expect(echoed).toEqual({});
    expect(await schemaErrors([answers[answers.length - 1]])).toEqual([]);
  });

  it('answers a repeated argument with badVerb or badArgument', async () => {
    const verb = await http().get('/oai?verb=Identify&verb=Identify').expect(200);
    expect(verb.text).toContain('code="badVerb"');
    const argument = await http().get('/oai?verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc').expect(200);
    expect(argument.text).toContain('code="badArgument"');
  });

  it('knows nothing of drafts, embargoed samples or samples deactivated before they were public', async () => {
    const neverPublic = await register({ name: 'OAI never public', is_draft: true });
    await http()
      .post(`/api/samples/${neverPublic.igsn}/deactivate/`)
      .set(owner.auth)
      .send({ reason: 'this was a test sample' })
      .expect(200);
    for (const sample of [draft, embargoed, neverPublic]) {
      for (const verb of ['GetRecord', 'ListMetadataFormats']) {
        const query: Record<string, string> = { verb, identifier: `doi:${sample.igsn}` };
        if (verb === 'GetRecord') query.metadataPrefix = 'oai_dc';
        expect(errorOf(await oai(query))?.code).toBe('idDoesNotExist');
      }
    }
  });

  it('takes the arguments as a form body (POST), as the protocol allows', async () => {
    const res = await http()
      .post('/oai')
      .type('form')
      .send({ verb: 'GetRecord', identifier: `doi:${published.igsn}`, metadataPrefix: 'oai_dc' })
      .expect(200);
    expect(res.text).toContain('<dc:title>OAI basalt</dc:title>');
    expect(res.text).toContain('A basalt &lt;core&gt; &amp; more');
    expect(await schemaErrors([res.text])).toEqual([]);
  });
});
