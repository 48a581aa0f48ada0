import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { LEGACY_XML_MAPPING, legacyText } from '../src/modules/legacy-xml/legacy-xml.mapper';
import { LegacyXmlElement, parseLegacySamplesDocument } from '../src/modules/legacy-xml/legacy-xml.parser';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import {
  LEGACY_BODY_FORMS,
  LEGACY_ENDPOINTS,
  compactLegacyDocument,
  legacySamplesDocument,
  minimalLegacySample,
  postLegacyXml,
  readLegacyExample,
  readLegacyResponse,
  readLegacyResults,
} from './support/legacy-xml-client';
import { createTestApp } from './support/test-app';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type JsonRecord = Record<string, unknown>;

/** The legacy 3-character code the reference examples use; no other suite creates it. */
const EXAMPLE_CODE = 'ABC';
const EXAMPLE_IGSN = 'ABC123456';
const UPLOAD_EXAMPLES = ['sesardoc_v1_upload_example.xml', 'sesardoc_v1_upload_example_linewrapped.xml'];
const UPDATE_EXAMPLES = ['sesardoc_v1_update_example.xml', 'sesardoc_v1_update_example_linewrapped.xml'];

let igsnCounter = 0;
/** A fresh IGSN under the examples' code (`ABC` + 6 characters), unique within this run. */
function nextExampleIgsn(): string {
  igsnCounter += 1;
  return `${EXAMPLE_CODE}L${String(igsnCounter).padStart(5, '0')}`;
}

/** An example document with its IGSN replaced (each IGSN registers once). */
function exampleWith(file: string, igsn: string): string {
  const xml = readLegacyExample(file);
  expect(xml).toContain(`<igsn>${EXAMPLE_IGSN}</igsn>`);
  return xml.replace(`<igsn>${EXAMPLE_IGSN}</igsn>`, `<igsn>${igsn}</igsn>`);
}

/** Reads a table path (`original_archive.label`, `collectors[].individual.label`: first entry) of a stored sample. */
function storedAt(sample: JsonRecord, jsonPath: string): unknown {
  let current: unknown = sample;
  for (const segment of jsonPath.split('.')) {
    const isList = segment.endsWith('[]');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as JsonRecord)[isList ? segment.slice(0, -2) : segment];
    if (isList) current = Array.isArray(current) ? (current as unknown[])[0] : undefined;
  }
  return current;
}

/** How the samples service stores what it resolves: IGSNs in DOI form, countries as ISO codes, date-times in UTC. */
const STORED_FORM: Record<string, (text: string) => unknown> = {
  igsn: (text) => `10.5072/${text}`,
  country: (text) => ({ 'United States': 'US' })[text] ?? text,
  sampling_start_date: (text) => new Date(text).toISOString(),
  sampling_end_date: (text) => new Date(text).toISOString(),
};

/**
 * Checks the stored sample against the mapping table, element by element: every plain element
 * (text, number, lower-case) where its row says; the combining rules checked by the caller.
 * Returns the names of the elements checked.
 */
function expectStoredAsMapped(stored: JsonRecord, sample: LegacyXmlElement): string[] {
  const checked: string[] = [];
  for (const element of sample.children) {
    const row = LEGACY_XML_MAPPING.find((candidate) => candidate.xml === element.name);
    expect([element.name, row]).toEqual([element.name, expect.anything()]);
    if (row === undefined || row.json === null) continue;
    const text = legacyText(element);
    const plain: Partial<Record<string, unknown>> = { text, number: Number(text), lowercase: text.toLowerCase() };
    if (!(row.rule in plain)) continue;
    const expected = STORED_FORM[row.json]?.(text) ?? plain[row.rule];
    expect([element.name, storedAt(stored, row.json)]).toEqual([element.name, expected]);
    checked.push(element.name);
  }
  return checked;
}

/** The combining rules of the table applied to the reference examples. */
function expectExampleCombinedFields(stored: JsonRecord): void {
  expect(stored).toMatchObject({
    registry_code: EXAMPLE_CODE,
    object_type: 'Thin section', // sample_subtype wins over sample_type
    material_types: ['Igneous>Plutonic>Felsic'], // nested classification, "Rock>" stripped
    sample_description: 'arkose',
    collectors: [expect.objectContaining({ individual: expect.objectContaining({ label: 'J. E. Andrew' }) })],
  });
}

describe('legacy XML endpoints', () => {
  let app: INestApplication;
  let exampleOwner: TestUser;
  let registrant: Registrant;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    exampleOwner = await createUserWithToken(app);
    await app.get(AccountsService).createRegistryCode(EXAMPLE_CODE, { email: exampleOwner.email });
    registrant = await createRegistrant(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const fetchSample = async (igsn: string, who: TestUser = exampleOwner): Promise<JsonRecord> =>
    (await http().get(`/api/samples/${igsn}/`).set(who.auth).expect(200)).body.data as JsonRecord;

  /** Samples of `who` whose name contains `name` (personal scope). */
  const countNamed = async (name: string, who: TestUser = registrant): Promise<number> =>
    (await http().get('/api/samples/').query({ name }).set(who.auth).expect(200)).body.count as number;

  const registerJson = (who: TestUser, body: JsonRecord) => http().post('/api/samples/').set(who.auth).send(body);

  describe('the reference examples', () => {
    it.each(
      UPLOAD_EXAMPLES.flatMap((file) =>
        [LEGACY_ENDPOINTS.upload, LEGACY_ENDPOINTS.register].map((path) => [file, path]),
      ),
    )('%s through %s registers the sample as the mapping table says', async (file, path) => {
      const igsn = nextExampleIgsn();
      const xml = exampleWith(file, igsn);
      const res = await postLegacyXml(app, path, xml, { headers: exampleOwner.auth }).expect(200);
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(res.headers.deprecation).toBe('true');
      expect(res.headers.link).toBe('</api/samples/>; rel="successor-version"');
      const results = await readLegacyResults(res.text);
      expect(results.samples).toEqual([
        {
          status: `Sample [TestSample123] was saved successfully with IGSN [${igsn}].`,
          name: 'TestSample123',
          igsn,
          attributeName: undefined,
          valid: undefined,
          error: undefined,
          warning: undefined,
        },
      ]);
      expect(results.warning).toMatch(/deprecated/);

      const stored = await fetchSample(igsn);
      expect(stored).toMatchObject({ igsn: `10.5072/${igsn}`, metadata_store_status: 'published' });
      const [sample] = parseLegacySamplesDocument(xml);
      expect(expectStoredAsMapped(stored, sample)).toHaveLength(17);
      expectExampleCombinedFields(stored);
    });

    it.each(UPDATE_EXAMPLES)('%s through update.php updates the sample it names', async (file) => {
      const igsn = nextExampleIgsn();
      await registerJson(exampleOwner, {
        igsn,
        registry_code: EXAMPLE_CODE,
        name: 'before the update',
        object_type: 'Individual sample',
        latitude: 10,
        longitude: 20,
        sample_description: 'old',
        country: 'FR',
      }).expect(201);

      const xml = exampleWith(file, igsn);
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.update, xml, { headers: exampleOwner.auth }).expect(200);
      const results = await readLegacyResults(res.text);
      expect(results.samples.map(({ status, name, igsn: bare }) => ({ status, name, igsn: bare }))).toEqual([
        { status: `Sample [TestSample123] was updated successfully with IGSN [${igsn}].`, name: 'TestSample123', igsn },
      ]);

      const stored = await fetchSample(igsn);
      const [sample] = parseLegacySamplesDocument(xml);
      expect(expectStoredAsMapped(stored, sample)).toHaveLength(17);
      expectExampleCombinedFields(stored);
    });

    it('updates through update.php with an upload example too (it names its IGSN)', async () => {
      const igsn = nextExampleIgsn();
      await registerJson(exampleOwner, {
        igsn,
        registry_code: EXAMPLE_CODE,
        name: 'before',
        object_type: 'Individual sample',
        latitude: 1,
        longitude: 2,
      }).expect(201);
      const xml = exampleWith(UPLOAD_EXAMPLES[0], igsn);
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.update, xml, { headers: exampleOwner.auth }).expect(200);
      expect((await readLegacyResults(res.text)).samples[0].status).toBe(
        `Sample [TestSample123] was updated successfully with IGSN [${igsn}].`,
      );
      expectExampleCombinedFields(await fetchSample(igsn));
    });

    it('accepts the verbatim examples: upload registers IGSN ABC123456, update then changes it', async () => {
      for (const path of [LEGACY_ENDPOINTS.upload, LEGACY_ENDPOINTS.update]) {
        const file = path === LEGACY_ENDPOINTS.upload ? UPLOAD_EXAMPLES[0] : UPDATE_EXAMPLES[0];
        const res = await postLegacyXml(app, path, readLegacyExample(file), { headers: exampleOwner.auth });
        const results = await readLegacyResults(res.text);
        const verb = path === LEGACY_ENDPOINTS.upload ? 'saved' : 'updated';
        expect([res.status, results.samples[0].status]).toEqual([
          200,
          `Sample [TestSample123] was ${verb} successfully with IGSN [${EXAMPLE_IGSN}].`,
        ]);
      }
      expectExampleCombinedFields(await fetchSample(EXAMPLE_IGSN));
    });
  });

  describe('response documents', () => {
    it('match the old service documents character for character, apart from the added <warning>', async () => {
      const name = `Upload Status ${randomUUID().slice(0, 8)}`;
      const res = await postLegacyXml(
        app,
        LEGACY_ENDPOINTS.upload,
        legacySamplesDocument(minimalLegacySample(registrant.code, name)),
        { headers: registrant.auth },
      ).expect(200);
      const igsn = (await readLegacyResults(res.text)).samples[0].igsn ?? '';
      expect(igsn).toMatch(new RegExp(`^${registrant.code}[0-9A-Z]{4}$`));
      expect(igsn).toHaveLength(9);
      const reference = readLegacyResponse('upload_success_sesardoc.xml')
        .replace(/Lulin Upload Status Sample test/g, name)
        .replace(/LLS00009I/g, igsn);
      expect(compactLegacyDocument(res.text)).toBe(compactLegacyDocument(reference));
      expect(res.text).toContain(`<status>Sample [${name}] was saved successfully with IGSN [${igsn}].</status>`);

      const updated = await postLegacyXml(
        app,
        LEGACY_ENDPOINTS.update,
        legacySamplesDocument(`<igsn>10.5072/${igsn.toLowerCase()}</igsn><name>${name}</name>`),
        { headers: registrant.auth, form: 'bare-xml' },
      ).expect(200);
      const updateReference = readLegacyResponse('update_success_sesardoc.xml')
        .replace(/Lulin Update Status Sample test/g, name)
        .replace(/LLS00009I/g, igsn);
      expect(compactLegacyDocument(updated.text)).toBe(compactLegacyDocument(updateReference));
    });

    it('refuses a sample the way error_400_invalidsample_sesardoc.xml shows', async () => {
      const res = await postLegacyXml(
        app,
        LEGACY_ENDPOINTS.upload,
        legacySamplesDocument(
          minimalLegacySample(EXAMPLE_CODE, 'your sample name', `<igsn>${nextExampleIgsn()}</igsn>`),
        ),
        { headers: registrant.auth },
      ).expect(400);
      const reference = readLegacyResponse('error_400_invalidsample_sesardoc.xml').replace(
        /<error>[^<]*<\/error>/,
        '<error>You may not register samples under registry code ABC.</error>',
      );
      expect(compactLegacyDocument(res.text)).toBe(compactLegacyDocument(reference));
      expect(res.text).not.toContain('<warning>');
    });

    it('answers InvalidAuth 401 like error_401_invalidauth_sesardoc.xml', async () => {
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, legacySamplesDocument('<name>x</name>')).expect(
        401,
      );
      const reference = readLegacyResponse('error_401_invalidauth_sesardoc.xml');
      const withoutError = (xml: string) => compactLegacyDocument(xml).replace(/<error>[^<]*<\/error>/, '<error/>');
      expect(withoutError(res.text)).toBe(withoutError(reference));
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });
  });

  describe('authentication (JWT only)', () => {
    const document = () => legacySamplesDocument(minimalLegacySample('IEZZZ', `auth-${randomUUID()}`));

    it.each(Object.values(LEGACY_ENDPOINTS))(
      '%s refuses username/password without a token: InvalidAuth 401',
      async (path) => {
        for (const form of ['raw-content-with-credentials', 'form-urlencoded'] as const) {
          const post =
            form === 'form-urlencoded'
              ? request(app.getHttpServer())
                  .post(path)
                  .type('form')
                  .send({ username: registrant.email, password: registrant.password, content: document() })
              : postLegacyXml(app, path, document(), { form });
          const res = await post.expect(401);
          expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
          const results = await readLegacyResults(res.text);
          expect(results.valid).toEqual({ code: 'InvalidAuth', value: 'no' });
          expect(results.error).toMatch(/usernames and passwords are not accepted.*Authorization: Bearer/);
        }
      },
    );

    it.each([
      ['Basic credentials', `Basic ${Buffer.from('someone:secret').toString('base64')}`],
      ['a Token scheme', 'Token abc.def.ghi'],
      ['an invalid bearer token', 'Bearer abc.def.ghi'],
    ])('refuses %s with InvalidAuth 401', async (_case, authorization) => {
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.register, document(), {
        headers: { Authorization: authorization },
      }).expect(401);
      expect((await readLegacyResults(res.text)).valid).toEqual({ code: 'InvalidAuth', value: 'no' });
    });
  });

  describe('body forms', () => {
    it.each(LEGACY_BODY_FORMS)('reads the content field sent as %s', async (form) => {
      const name = `form-${form}-${randomUUID().slice(0, 8)}`;
      // `&`, `=`, `+` and `%` must survive a raw (not URL-encoded) content= body.
      const description = 'quartz & feldspar; Fe/Mg=2; 1+1 = 2; 100% dry';
      const xml = legacySamplesDocument(
        minimalLegacySample(
          registrant.code,
          name,
          '<description>quartz &amp; feldspar; Fe/Mg=2; 1+1 = 2; 100% dry</description>',
        ),
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.register, xml, { form, headers: registrant.auth }).expect(
        200,
      );
      const [result] = (await readLegacyResults(res.text)).samples;
      expect(result.status).toBe(`Sample [${name}] was saved successfully with IGSN [${result.igsn}].`);
      expect((await fetchSample(result.igsn ?? '', registrant)).sample_description).toBe(description);
    });

    it.each(['form-urlencoded', 'multipart-field', 'json'] as const)(
      'accepts a 1.5 MB document as %s: the XML limit applies, not the 1 MB JSON/form limit',
      async (form) => {
        const name = `large-${randomUUID().slice(0, 8)}`;
        // Percent-encoded, each line break takes 3 bytes: still under the 5 MB XML limit.
        const padding = '\n'.repeat(1.5 * 1024 * 1024);
        const xml = legacySamplesDocument(minimalLegacySample(registrant.code, name)).replace(
          '  <sample>',
          `${padding}<sample>`,
        );
        await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { form, headers: registrant.auth }).expect(200);
        expect(await countNamed(name)).toBe(1);
      },
    );

    it('answers the same on every path spelling: with and without the trailing slash', async () => {
      for (const path of ['/api/samples/legacy-xml', '/api/samples/legacy-xml/', '/webservices/upload.php']) {
        const xml = legacySamplesDocument(minimalLegacySample(registrant.code, `path-${randomUUID().slice(0, 8)}`));
        await postLegacyXml(app, path, xml, { form: 'raw-content', headers: registrant.auth }).expect(200);
      }
    });

    it.each([
      ['an unsupported media type', 'application/pdf', 415, /Unsupported media type "application\/pdf"/],
      ['no content field', 'application/x-www-form-urlencoded', 400, /no content field/],
      ['malformed JSON', 'application/json', 400, /not valid JSON/],
    ])('answers %s with an InvalidXML document', async (_case, contentType, status, message) => {
      const body = contentType === 'application/json' ? '{"content": ' : 'username=x&password=y';
      const res = await http()
        .post(LEGACY_ENDPOINTS.upload)
        .set(registrant.auth)
        .set('Content-Type', contentType)
        .send(body)
        .expect(status);
      const results = await readLegacyResults(res.text);
      expect(results.valid).toEqual({ code: 'InvalidXML', value: 'no' });
      expect(results.error).toMatch(message);
    });

    it('answers a document that is not well-formed XML with InvalidXML 400', async () => {
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, '<samples><sample><name>x</sample></samples>', {
        headers: registrant.auth,
      }).expect(400);
      const results = await readLegacyResults(res.text);
      expect(results.order).toEqual(['valid', 'error']);
      expect(results.error).toMatch(/^The XML document is not well-formed: Unexpected close tag/);
    });
  });

  describe('hostile documents are refused with InvalidXML and store nothing', () => {
    it('an external entity', async () => {
      const name = `xxe-${randomUUID().slice(0, 8)}`;
      const xml =
        '<?xml version="1.0"?>\n<!DOCTYPE samples [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n' +
        legacySamplesDocument(minimalLegacySample(registrant.code, name, '<description>&xxe;</description>')).replace(
          /^<\?xml[^>]*>\n/,
          '',
        );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: registrant.auth }).expect(400);
      const results = await readLegacyResults(res.text);
      expect(results.valid).toEqual({ code: 'InvalidXML', value: 'no' });
      expect(res.text).not.toContain('root:');
      expect(await countNamed(name)).toBe(0);
    });

    it('a billion-laughs entity expansion', async () => {
      const name = `lol-${randomUUID().slice(0, 8)}`;
      const entities = ['<!ENTITY lol "lol">'];
      for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
      const xml =
        `<?xml version="1.0"?>\n<!DOCTYPE samples [${entities.join('')}]>\n` +
        `<samples><sample>${minimalLegacySample(registrant.code, name, '<description>&lol9;</description>')}</sample></samples>`;
      const started = Date.now();
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.register, xml, { headers: registrant.auth }).expect(400);
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await readLegacyResults(res.text)).valid).toEqual({ code: 'InvalidXML', value: 'no' });
      expect(await countNamed(name)).toBe(0);
    });

    it.each(['raw-content', 'multipart-field', 'bare-xml'] as const)(
      'a 20 MB document sent as %s: 413',
      async (form) => {
        const name = `big-${randomUUID().slice(0, 8)}`;
        const padding = 'x'.repeat(20 * 1024 * 1024);
        const xml = legacySamplesDocument(
          minimalLegacySample(registrant.code, name, `<description>${padding}</description>`),
        );
        const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { form, headers: registrant.auth }).expect(
          413,
        );
        const results = await readLegacyResults(res.text);
        expect(results.valid).toEqual({ code: 'InvalidXML', value: 'no' });
        expect(results.error).toMatch(/larger than the limit of 5242880 bytes/);
        expect(await countNamed(name)).toBe(0);
      },
    );
  });

  describe('one sample at a time', () => {
    it('stores the valid sample of a two-sample document and reports both, in document order', async () => {
      const good = `good-${randomUUID().slice(0, 8)}`;
      const bad = `bad-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        `<user_code>${registrant.code}</user_code><sample_type>Individual Sample</sample_type><name>${bad}</name>` +
          '<latitude>95</latitude>',
        minimalLegacySample(registrant.code, good),
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: registrant.auth }).expect(200);
      const results = await readLegacyResults(res.text);
      expect(results.order).toEqual(['sample', 'sample', 'warning']);
      const [failed, saved] = results.samples;
      expect(failed).toMatchObject({
        attributeName: bad,
        valid: { code: 'InvalidSample', value: 'no' },
        status: 'Not Saved',
        error: 'Validation failed. latitude: must not be greater than 90.',
      });
      expect(saved.status).toBe(`Sample [${good}] was saved successfully with IGSN [${saved.igsn}].`);
      expect(await countNamed(good)).toBe(1);
      expect(await countNamed(bad)).toBe(0);
    });

    it('answers 400 when no sample was saved, with readable per-sample errors', async () => {
      const name = `halfcoords-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        `<user_code>${registrant.code}</user_code><sample_type>Individual Sample</sample_type><name>${name}</name>` +
          '<latitude>12</latitude>',
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.register, xml, { headers: registrant.auth }).expect(400);
      const results = await readLegacyResults(res.text);
      expect(results.warning).toBeUndefined();
      // Half a position is refused rather than saved as a draft (docs/integrations/legacy-xml-mapping.md).
      expect(results.samples[0].error).toBe('Validation failed. longitude: is required to publish a sample.');
      expect(await countNamed(name)).toBe(0);
    });

    it('refuses a repeated sample name within one document', async () => {
      const name = `twice-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        minimalLegacySample(registrant.code, name),
        minimalLegacySample(registrant.code, name),
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: registrant.auth }).expect(200);
      const [first, second] = (await readLegacyResults(res.text)).samples;
      expect(first.status).toMatch(/was saved successfully/);
      expect(second).toMatchObject({
        attributeName: name,
        error: `The name ${name} is used by an earlier sample of this document; names must be unique.`,
      });
      expect(await countNamed(name)).toBe(1);
    });

    it('refuses a sample carrying an element the sample record has no field for, naming it', async () => {
      const name = `unknown-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        minimalLegacySample(
          registrant.code,
          name,
          '<locality_description>north slope</locality_description><sample_feature>ridge</sample_feature><id>7</id>',
        ),
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: registrant.auth }).expect(400);
      expect((await readLegacyResults(res.text)).samples[0].error).toBe(
        'The sample record has no field for <sample_feature>, <id>; remove them.',
      );
      expect(await countNamed(name)).toBe(0);
    });

    it('stores the schema elements that have their own columns, and JSON field names sent as elements', async () => {
      const name = `columns-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        minimalLegacySample(
          registrant.code,
          name,
          '<field_name>F-1</field_name><primary_location_type>Ridge</primary_location_type>' +
            '<vertical_datum>WGS84</vertical_datum><northing>3930000.5</northing><easting>455000</easting>' +
            '<zone>11N</zone><depth_scale>MBSF</depth_scale><size>3</size><size_unit>cm</size_unit>' +
            '<cruise_field_prgrm>AT42</cruise_field_prgrm><current_archive_contact>curator@example.org</current_archive_contact>' +
            '<original_archive_contact>PI</original_archive_contact><latitude_end>36</latitude_end>' +
            '<longitude_end>-118</longitude_end><depth_unit>meters</depth_unit>',
        ),
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: registrant.auth }).expect(200);
      const stored = await fetchSample((await readLegacyResults(res.text)).samples[0].igsn ?? '', registrant);
      expect(stored).toMatchObject({
        field_name: 'F-1',
        primary_location_type: 'Ridge',
        vertical_datum: 'WGS84',
        northing: '3930000.5',
        easting: '455000',
        zone: '11N',
        depth_scale: 'MBSF',
        size: '3',
        size_unit: 'cm',
        cruise_field_prgrm: 'AT42',
        current_archive_contact: 'curator@example.org',
        original_archive_contact: 'PI',
        end_latitude: 36,
        end_longitude: -118,
        depth_unit: 'meters',
      });
    });

    it('update.php refuses a sample without <igsn> and updates the others', async () => {
      const created = await registerJson(registrant, {
        registry_code: registrant.code,
        name: `to-update-${randomUUID().slice(0, 8)}`,
        object_type: 'Individual sample',
        latitude: 1,
        longitude: 2,
      }).expect(201);
      const igsn = (created.body.data.igsn as string).split('/')[1];
      const xml = legacySamplesDocument(
        '<name>no igsn here</name><description>x</description>',
        `<igsn>${igsn}</igsn><description>updated by XML</description>`,
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.update, xml, { headers: registrant.auth }).expect(200);
      const [missing, updated] = (await readLegacyResults(res.text)).samples;
      expect(missing).toMatchObject({
        attributeName: 'no igsn here',
        error: 'An update needs the <igsn> of the sample to change.',
      });
      expect(updated.status).toBe(`Sample [${created.body.data.name}] was updated successfully with IGSN [${igsn}].`);
      expect((await fetchSample(igsn, registrant)).sample_description).toBe('updated by XML');
    });

    it('update.php refuses samples the caller may not edit', async () => {
      const other = await createRegistrant(app);
      const created = await registerJson(other, {
        registry_code: other.code,
        name: 'not yours',
        object_type: 'Individual sample',
        latitude: 1,
        longitude: 2,
      }).expect(201);
      const igsn = (created.body.data.igsn as string).split('/')[1];
      const res = await postLegacyXml(
        app,
        LEGACY_ENDPOINTS.update,
        legacySamplesDocument(`<igsn>${igsn}</igsn><description>hijack</description>`),
        { headers: registrant.auth },
      ).expect(400);
      expect((await readLegacyResults(res.text)).samples[0].error).toBe('You may not edit this sample.');
      expect((await fetchSample(igsn, other)).sample_description).toBeNull();
    });
  });

  it('is documented in the OpenAPI document as deprecated, with XML responses', async () => {
    const { body } = await http().get('/api/schema').expect(200);
    for (const path of ['/webservices/upload.php', '/webservices/update.php', '/api/samples/legacy-xml']) {
      const operation = body.paths[path]?.post;
      expect([path, operation?.deprecated, operation?.tags]).toEqual([path, true, ['legacy-xml']]);
      expect(Object.keys(operation.requestBody.content)).toContain('multipart/form-data');
      expect(operation.responses['200'].content['application/xml'].examples.success.value).toContain('<results>');
      expect(operation.responses['401'].content['application/xml'].examples.invalidAuth.value).toContain('InvalidAuth');
    }
  });
});
