import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { readFixture } from './fixtures/fixtures';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import {
  LEGACY_ENDPOINTS,
  legacySamplesDocument,
  minimalLegacySample,
  postLegacyXml,
  readLegacyExample,
  readLegacyResults,
} from './support/legacy-xml-client';
import { createTestApp } from './support/test-app';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type JsonRecord = Record<string, unknown>;

/**
 * Issue 13, section 4: documents real old clients send, accepted unchanged. The object types below
 * are written out from the registry's sample-type crosswalk, not computed from the code under test.
 */
const V1_SAMPLE_TYPES: Record<string, string> = {
  Bead: 'Bead',
  'Chemical Fraction': 'Chemical fraction',
  Core: 'Core',
  'Core Half Round': 'Core half round',
  'Core Piece': 'Core piece',
  'Core Quarter Round': 'Core quarter round',
  'Core Section': 'Core section',
  'Core Section Half': 'Core section half',
  'Core Sub-Piece': 'Core subpiece',
  'Core Whole Round': 'Core whole round',
  CTD: 'CTD sample',
  Cube: 'Cube',
  Culture: 'Cell culture',
  Cuttings: 'Cuttings',
  Cylinder: 'Cylinder',
  Dredge: 'Dredge',
  Gas: 'Gas in container',
  Grab: 'Grab',
  Hole: 'Hole',
  'Individual Sample': 'Individual sample',
  Liquid: 'Liquid in container',
  'Mechanical Fraction': 'Mechanical fraction',
  'Oriented Core': 'Oriented Core',
  Powder: 'Powder',
  'Rock Powder': 'Powder',
  Site: 'Site',
  Slab: 'Slab',
  Smear: 'Glass slide smear',
  Specimen: 'Individual sample',
  'Squeeze Cake': 'Squeeze cake',
  'Terrestrial Section': 'Terrestrial section',
  'Thin Section': 'Thin section',
  Toothpick: 'Toothpick',
  Trawl: 'Trawl',
  'U-Channel': 'Core U-channel sample',
  Wedge: 'Wedge',
  Other: 'Material sample',
};

/** Type/subtype pairs of the crosswalk, with the object type each one means. */
const CROSSWALK_PAIRS: [type: string, subtype: string, objectType: string][] = [
  ['Individual Sample', 'Culture', 'Cell culture'],
  ['Individual Sample', 'Gas', 'Gas in container'],
  ['Individual Sample', 'Human Tissue Sample', 'Human tissue'],
  ['Individual Sample', 'Liquid', 'Liquid in container'],
  ['Individual Sample', 'Smear', 'Glass slide smear'],
  ['Individual Sample', 'Specimen', 'Individual sample'],
  ['IndividualSample', 'Thin Section', 'Thin section'],
  ['Experimental Specimen', 'Other', 'Analytical preparations'],
  ['Experimental Specimen', 'Thin Section', 'Thin section'],
];

/** The `sample_type` enumeration of the v1 XSD (a copy in the fixtures). */
function xsdSampleTypes(): string[] {
  const xsd = readFixture('legacy-xml', 'schemas', 'SESAR_samplev2_schema_from_SESAR-Web-Services-Lib.xsd');
  const start = xsd.indexOf('<xs:element name="sample_type">');
  const block = xsd.slice(start, xsd.indexOf('</xs:element>', start));
  return [...block.matchAll(/<xs:enumeration value="([^"]+)"\/>/g)].map((match) => match[1]);
}

/** A legacy 3-character code for the reference examples; the legacy-xml suite uses ABC. */
const EXAMPLE_CODE = 'XCL';
let igsnCounter = 0;
const nextExampleIgsn = () => `${EXAMPLE_CODE}C${String(++igsnCounter).padStart(5, '0')}`;

describe('old XML clients, unchanged (issue 13, section 4)', () => {
  let app: INestApplication;
  let registrant: Registrant;
  let exampleOwner: TestUser;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    registrant = await createRegistrant(app);
    exampleOwner = await createUserWithToken(app);
    await app.get(AccountsService).createRegistryCode(EXAMPLE_CODE, { email: exampleOwner.email });
  });

  afterAll(async () => {
    await app.close();
  });

  const fetchSample = async (igsn: string, who: TestUser = registrant): Promise<JsonRecord> =>
    (await http().get(`/api/samples/${igsn}/`).set(who.auth).expect(200)).body.data as JsonRecord;

  /** The caller's samples whose name contains `name`, by name. */
  const samplesNamed = async (name: string): Promise<Map<string, JsonRecord>> => {
    const res = await http().get('/api/samples/').query({ name, page_size: 200 }).set(registrant.auth).expect(200);
    return new Map((res.body.data as JsonRecord[]).map((sample) => [sample.name as string, sample]));
  };

  /** Registers one sample through upload.php and returns its bare IGSN. */
  const uploadOne = async (inner: string): Promise<string> => {
    const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, legacySamplesDocument(inner), {
      headers: registrant.auth,
    }).expect(200);
    const [result] = (await readLegacyResults(res.text)).samples;
    expect(result.status).toMatch(/was saved successfully/);
    return result.igsn as string;
  };

  const updateOne = async (igsn: string, inner: string, expected = 200) =>
    readLegacyResults(
      (
        await postLegacyXml(app, LEGACY_ENDPOINTS.update, legacySamplesDocument(`<igsn>${igsn}</igsn>${inner}`), {
          headers: registrant.auth,
        }).expect(expected)
      ).text,
    );

  describe('sample types', () => {
    it('registers every sample_type value of the v1 XSD under its crosswalk object type, keeping the original', async () => {
      const values = xsdSampleTypes();
      expect([...values].sort()).toEqual(Object.keys(V1_SAMPLE_TYPES).sort());
      const prefix = `v1type-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        ...values.map((value, index) =>
          minimalLegacySample(registrant.code, `${prefix}-${index}`).replace(
            '<sample_type>Individual Sample</sample_type>',
            `<sample_type>${value}</sample_type>`,
          ),
        ),
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: registrant.auth }).expect(200);
      const results = await readLegacyResults(res.text);
      expect(results.samples.filter((sample) => !/was saved successfully/.test(sample.status ?? ''))).toEqual([]);

      const stored = await samplesNamed(prefix);
      expect(
        values.map((value, index) => {
          const sample = stored.get(`${prefix}-${index}`);
          return [value, sample?.object_type, sample?.legacy_sample_type];
        }),
      ).toEqual(values.map((value) => [value, V1_SAMPLE_TYPES[value], value]));
    });

    it('maps the crosswalk type/subtype pairs and keeps the pair as sent', async () => {
      const prefix = `pair-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        ...CROSSWALK_PAIRS.map(([type, subtype], index) =>
          minimalLegacySample(registrant.code, `${prefix}-${index}`).replace(
            '<sample_type>Individual Sample</sample_type>',
            `<sample_type>${type}</sample_type><sample_subtype>${subtype}</sample_subtype>`,
          ),
        ),
      );
      await postLegacyXml(app, LEGACY_ENDPOINTS.register, xml, { headers: registrant.auth }).expect(200);
      const stored = await samplesNamed(prefix);
      expect(
        CROSSWALK_PAIRS.map(([type, subtype], index) => {
          const sample = stored.get(`${prefix}-${index}`);
          return [type, subtype, sample?.object_type, sample?.legacy_sample_type];
        }),
      ).toEqual(
        CROSSWALK_PAIRS.map(([type, subtype, objectType]) => [type, subtype, objectType, `${type} > ${subtype}`]),
      );
    });

    it('still refuses a sample type neither the crosswalk nor the vocabulary knows, naming object_type', async () => {
      const name = `boulder-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        minimalLegacySample(registrant.code, name).replace('Individual Sample', 'Boulder'),
      );
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: registrant.auth }).expect(400);
      expect((await readLegacyResults(res.text)).samples[0].error).toMatch(
        /object_type: unknown object type "Boulder"/,
      );
      expect((await samplesNamed(name)).size).toBe(0);
    });

    it('keeps the legacy sample type of the reference examples: upload, then update (IndividualSample spelling)', async () => {
      const igsn = nextExampleIgsn();
      const upload = readLegacyExample('sesardoc_v1_upload_example.xml')
        .replace('<user_code>ABC</user_code>', `<user_code>${EXAMPLE_CODE}</user_code>`)
        .replace('<igsn>ABC123456</igsn>', `<igsn>${igsn}</igsn>`);
      await postLegacyXml(app, LEGACY_ENDPOINTS.upload, upload, { headers: exampleOwner.auth }).expect(200);
      expect(await fetchSample(igsn, exampleOwner)).toMatchObject({
        object_type: 'Thin section',
        legacy_sample_type: 'Individual Sample > Thin Section',
      });
      // The public landing page shows "object type (previously legacy sample type)".
      const page = (await http().get(`/samples/${igsn}`).expect(200)).text;
      expect(page).toContain(
        'Analytical preparations &gt; Sectioned specimen &gt; Thin section (previously Individual Sample &gt; Thin Section)',
      );

      const update = readLegacyExample('sesardoc_v1_update_example.xml').replace(
        '<igsn>ABC123456</igsn>',
        `<igsn>${igsn}</igsn>`,
      );
      expect(update).toContain('<sample_type>IndividualSample</sample_type>');
      await postLegacyXml(app, LEGACY_ENDPOINTS.update, update, { headers: exampleOwner.auth }).expect(200);
      expect(await fetchSample(igsn, exampleOwner)).toMatchObject({
        object_type: 'Thin section',
        legacy_sample_type: 'IndividualSample > Thin Section',
      });
    });

    it('keeps the legacy sample type when an update sends neither type nor subtype, and JSON writes cannot set it', async () => {
      const igsn = await uploadOne(
        minimalLegacySample(registrant.code, `keep-${randomUUID().slice(0, 8)}`).replace('Individual Sample', 'CTD'),
      );
      await updateOne(igsn, '<purpose>profile</purpose>');
      await http()
        .patch(`/api/samples/${igsn}/`)
        .set(registrant.auth)
        .send({ legacy_sample_type: 'Changed', size: '2 m' })
        .expect(200);
      expect(await fetchSample(igsn)).toMatchObject({
        object_type: 'CTD sample',
        legacy_sample_type: 'CTD',
        purpose: 'profile',
        size: '2 m',
      });
    });

    it('maps parent_sample_type through the crosswalk', async () => {
      const igsn = await uploadOne(
        minimalLegacySample(
          registrant.code,
          `parent-${randomUUID().slice(0, 8)}`,
          '<parent_name>core 7</parent_name><parent_sample_type>U-Channel</parent_sample_type>',
        ),
      );
      expect(await fetchSample(igsn)).toMatchObject({
        external_parent_name: 'core 7',
        external_parent_object_type: 'Core U-channel sample',
      });
    });
  });

  describe('samples without coordinates', () => {
    const withoutCoordinates = (name: string, extra = '') =>
      `<user_code>${registrant.code}</user_code><sample_type>Rock Powder</sample_type><name>${name}</name>${extra}`;

    it('are saved as drafts with a <warning> saying what to add, and update.php with coordinates publishes them', async () => {
      const name = `nocoords-${randomUUID().slice(0, 8)}`;
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.upload, legacySamplesDocument(withoutCoordinates(name)), {
        headers: registrant.auth,
      }).expect(200);
      const results = await readLegacyResults(res.text);
      const [saved] = results.samples;
      const igsn = saved.igsn as string;
      expect(saved).toMatchObject({
        status: `Sample [${name}] was saved successfully with IGSN [${igsn}].`,
        name,
        warning:
          `Sample [${name}] was saved as a draft because it has no coordinates: ` +
          `send <latitude> and <longitude> for IGSN [${igsn}] with update.php to publish it.`,
      });
      expect(results.order).toEqual(['sample', 'warning']);
      expect(results.warning).toMatch(/deprecated/);
      expect(await fetchSample(igsn)).toMatchObject({
        is_draft: true,
        metadata_store_status: 'draft',
        latitude: null,
        longitude: null,
        object_type: 'Powder',
      });
      // A draft is not public.
      await http().get(`/api/samples/${igsn}/`).expect(401);

      // An update that still gives no coordinates keeps it a draft, with the same warning.
      const stillDraft = await updateOne(igsn, '<purpose>dating</purpose>');
      expect(stillDraft.samples[0].warning).toMatch(/saved as a draft because it has no coordinates/);

      const published = await updateOne(igsn, '<latitude>35.5</latitude><longitude>-117.3</longitude>');
      expect(published.samples[0]).toMatchObject({
        status: `Sample [${name}] was updated successfully with IGSN [${igsn}].`,
        warning: undefined,
      });
      expect(await fetchSample(igsn)).toMatchObject({
        is_draft: false,
        metadata_store_status: 'published',
        latitude: 35.5,
        longitude: -117.3,
        purpose: 'dating',
      });
    });

    it('answer 200 when every sample of the document is such a draft', async () => {
      const prefix = `alldraft-${randomUUID().slice(0, 8)}`;
      const res = await postLegacyXml(
        app,
        LEGACY_ENDPOINTS.register,
        legacySamplesDocument(withoutCoordinates(`${prefix}-a`), withoutCoordinates(`${prefix}-b`)),
        { headers: registrant.auth },
      ).expect(200);
      const results = await readLegacyResults(res.text);
      expect(results.samples.map((sample) => sample.warning === undefined)).toEqual([false, false]);
      expect([...(await samplesNamed(prefix)).values()].map((sample) => sample.metadata_store_status)).toEqual([
        'draft',
        'draft',
      ]);
    });

    it('with half a position are refused (half a position is more likely a mistake than an omission)', async () => {
      const name = `half-${randomUUID().slice(0, 8)}`;
      const res = await postLegacyXml(
        app,
        LEGACY_ENDPOINTS.upload,
        legacySamplesDocument(withoutCoordinates(name, '<longitude>12</longitude>')),
        { headers: registrant.auth },
      ).expect(400);
      expect((await readLegacyResults(res.text)).samples[0].error).toBe(
        'Validation failed. latitude: is required to publish a sample.',
      );
      expect((await samplesNamed(name)).size).toBe(0);
    });
  });

  describe('v1 elements of the field crosswalk', () => {
    it('maps <locality_description> into location_description instead of refusing the sample', async () => {
      const igsn = await uploadOne(
        minimalLegacySample(
          registrant.code,
          `locality-${randomUUID().slice(0, 8)}`,
          '<locality>Lava Mountains</locality><locality_description>north slope, 200 m below the ridge</locality_description>' +
            '<location_description>road cut</location_description>',
        ),
      );
      expect(await fetchSample(igsn)).toMatchObject({
        locality: 'Lava Mountains',
        location_description: 'road cut\n\nnorth slope, 200 m below the ridge',
      });

      // An update with only <locality_description> appends it, like a comment.
      await updateOne(igsn, '<locality_description>second visit: trench filled</locality_description>');
      expect((await fetchSample(igsn)).location_description).toBe(
        'road cut\n\nnorth slope, 200 m below the ridge\n\nsecond visit: trench filled',
      );
    });

    it('stores every element of the v1 upload example (none is refused)', async () => {
      const igsn = nextExampleIgsn();
      const xml = readLegacyExample('sesardoc_v1_upload_example_linewrapped.xml')
        .replace('<user_code>ABC</user_code>', `<user_code>${EXAMPLE_CODE}</user_code>`)
        .replace('<igsn>ABC123456</igsn>', `<igsn>${igsn}</igsn>`);
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.register, xml, { headers: exampleOwner.auth }).expect(200);
      expect((await readLegacyResults(res.text)).samples[0].status).toMatch(/was saved successfully/);
      expect(await fetchSample(igsn, exampleOwner)).toMatchObject({
        primary_location_name: 'Lava Mountains, Mojave Desert, California',
        legacy_sample_type: 'Individual Sample > Thin Section',
      });
    });
  });

  describe('legacy update with only comments (spec part 4: appended to the description)', () => {
    const registerWithDescription = async (description: string | null): Promise<string> => {
      const res = await http()
        .post('/api/samples/')
        .set(registrant.auth)
        .send({
          registry_code: registrant.code,
          name: `append-${randomUUID().slice(0, 8)}`,
          object_type: 'Core',
          latitude: 1,
          longitude: 2,
          sample_description: description,
        })
        .expect(201);
      return (res.body.data.igsn as string).split('/')[1];
    };

    it('appends <sample_comment> to the stored description instead of replacing it', async () => {
      const igsn = await registerWithDescription('Olivine basalt.');
      const results = await updateOne(igsn, '<sample_comment>Split for XRF in 2024.</sample_comment>');
      expect(results.samples[0].status).toMatch(/was updated successfully/);
      expect((await fetchSample(igsn)).sample_description).toBe('Olivine basalt.\n\nSplit for XRF in 2024.');

      await updateOne(igsn, '<classification_comment>Reclassified.</classification_comment>');
      expect((await fetchSample(igsn)).sample_description).toBe(
        'Olivine basalt.\n\nSplit for XRF in 2024.\n\nReclassified.',
      );
    });

    it('replaces the description when the update carries a <description>, the comment following it', async () => {
      const igsn = await registerWithDescription('Old text.');
      await updateOne(igsn, '<sample_comment>note</sample_comment><description>New text.</description>');
      expect((await fetchSample(igsn)).sample_description).toBe('New text.\n\nnote');
    });

    it('makes the comment the description when none is stored', async () => {
      const igsn = await registerWithDescription(null);
      await updateOne(igsn, '<sample_comment>first note</sample_comment>');
      expect((await fetchSample(igsn)).sample_description).toBe('first note');
    });

    it('keeps both comments of two concurrent updates', async () => {
      const igsn = await registerWithDescription('base');
      await Promise.all([
        updateOne(igsn, '<sample_comment>from client A</sample_comment>'),
        updateOne(igsn, '<sample_comment>from client B</sample_comment>'),
      ]);
      const description = (await fetchSample(igsn)).sample_description as string;
      expect(description.split('\n\n').sort()).toEqual(['base', 'from client A', 'from client B']);
    });

    it('refuses an append that would pass the description limit, changing nothing', async () => {
      const igsn = await registerWithDescription('x'.repeat(19_995));
      const results = await updateOne(igsn, '<sample_comment>too long</sample_comment><purpose>p</purpose>', 400);
      expect(results.samples[0].error).toBe(
        'Validation failed. sample_description: appending the text would make it longer than 20000 characters.',
      );
      const stored = await fetchSample(igsn);
      expect([(stored.sample_description as string).length, stored.purpose]).toEqual([19_995, null]);
    });
  });
});
