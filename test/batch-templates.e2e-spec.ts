import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import * as XLSX from 'xlsx';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { TeamRole } from '../src/modules/accounts/team.entity';
import { templateColumns } from '../src/modules/batches/batch-fields';
import { TestUser, createRegistrant, createUserWithToken, uniqueRegistryCode } from './support/auth';
import { createTestApp } from './support/test-app';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Auth = { auth: { Authorization: string } };

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describe('batch templates', () => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  let owner: Registrant;
  let stranger: Registrant;
  let coreId: number;

  beforeAll(async () => {
    app = await createTestApp();
    [owner, stranger] = await Promise.all([createRegistrant(app), createRegistrant(app)]);
    const types = await http().get('/api/object-types/').query({ search: 'Core' }).expect(200);
    coreId = types.body.data.find((type: { label: string }) => type.label === 'Core').id;
  });

  afterAll(async () => {
    await app.close();
  });

  const create = (who: Auth, body: Record<string, unknown>) =>
    http().post('/api/batch-templates/').set(who.auth).send(body);
  const patch = (who: Auth, id: number, body: Record<string, unknown>) =>
    http().patch(`/api/batch-templates/${id}/`).set(who.auth).send(body);
  const label = () => `template-${randomUUID().slice(0, 8)}`;

  /** A team owning a fresh registry code, with members in the given roles. */
  async function team(members: [TestUser, TeamRole][]): Promise<{ name: string; code: string }> {
    const accounts = app.get(AccountsService);
    const name = `team-${randomUUID().slice(0, 8)}`;
    await accounts.createTeam(name);
    const code = await freshCode((candidate) => accounts.createRegistryCode(candidate, { team: name }));
    for (const [member, role] of members) await accounts.addTeamMember(name, member.email, role);
    return { name, code };
  }

  async function freshCode(createCode: (code: string) => Promise<unknown>): Promise<string> {
    for (;;) {
      const code = uniqueRegistryCode();
      try {
        await createCode(code);
        return code;
      } catch (error) {
        if ((error as { getStatus?: () => number }).getStatus?.() !== 409) throw error;
      }
    }
  }

  async function downloadWorkbook(who: Auth, id: number) {
    const res = await http()
      .get(`/api/batch-templates/${id}/spreadsheet/`)
      .set(who.auth)
      .buffer(true)
      .parse((response, callback) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => callback(null, Buffer.concat(chunks)));
      })
      .expect(200);
    return { res, body: res.body as Buffer };
  }

  describe('create, read, update', () => {
    it('creates a template and reads it back with names, the object type and the presets', async () => {
      const body = {
        label: '  Cruise AT-42 cores ',
        registry_code: owner.code.toLowerCase(),
        object_type: coreId,
        selected_fields: ['country', 'Platform Name', 'collector', 'country'],
        cruise_field_prgrms: ['AT-42'],
        platforms: ['R/V Atlantis', ' R/V Atlantis '],
        launch_platforms: [],
        current_archives: ['Lamont-Doherty Core Repository'],
        original_archives: null,
        collectors: ['Jane Doe', { label: 'John Roe', description: 'Deck technician' }],
      };
      const created = await create(owner, body).expect(201);
      const template = created.body.data;
      expect(template).toEqual({
        id: expect.any(Number),
        label: 'Cruise AT-42 cores',
        registry_code: owner.code,
        object_type: expect.objectContaining({
          id: coreId,
          label: 'Core',
          hierarchical_label: 'Marine and lacustrine samples > Core',
          parent_type: 'Marine and lacustrine samples',
        }),
        user_owner: 'Test User',
        team_owner: null,
        created_by: 'Test User',
        created_date: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        version: 1,
        is_archived: false,
        selected_fields: ['country', 'platform_label', 'collector'],
        initiatives: ['AT-42'],
        platforms: ['R/V Atlantis'],
        launch_platforms: [],
        current_archives: ['Lamont-Doherty Core Repository'],
        original_archives: [],
        collector_tags: [
          { label: 'Jane Doe', description: null },
          { label: 'John Roe', description: 'Deck technician' },
        ],
      });
      const fetched = await http().get(`/api/batch-templates/${template.id}`).set(owner.auth).expect(200);
      expect(fetched.body.data).toEqual(template);
    });

    it('accepts an object type label, and no object type or registry code at all', async () => {
      const byLabel = await create(owner, { label: label(), object_type: 'core' }).expect(201);
      expect(byLabel.body.data.object_type.id).toBe(coreId);
      const bare = await create(owner, { label: label() }).expect(201);
      expect(bare.body.data).toMatchObject({ object_type: null, registry_code: null, selected_fields: [] });
    });

    it('answers invalid writes with 400 naming each field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ label: 'x'.repeat(256) }, 'label'],
        [{ label: '   ' }, 'label'],
        [{}, 'label'],
        [{ label: 'ok', selected_fields: ['country', 'colour'] }, 'selected_fields.1'],
        [{ label: 'ok', object_type: 999999 }, 'object_type'],
        [{ label: 'ok', object_type: 'Unicorn' }, 'object_type'],
        [{ label: 'ok', object_type: true }, 'object_type'],
        [{ label: 'ok', registry_code: 'ZZ9' }, 'registry_code'],
        [{ label: 'ok', platforms: ['x'.repeat(256)] }, 'platforms'],
        [{ label: 'ok', platforms: Array(501).fill('p') }, 'platforms'],
        [{ label: 'ok', current_archives: 'Lamont' }, 'current_archives'],
        [{ label: 'ok', collectors: [{ description: 'no name' }] }, 'collectors.0.label'],
        [{ label: 'ok', is_archived: 'yes' }, 'is_archived'],
        [{ label: 'ok', colour: 'red' }, 'colour'],
      ];
      for (const [body, field] of cases) {
        const res = await create(owner, body);
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(res.body.errors).toHaveProperty([field]);
        expect(res.body.message).toEqual(expect.any(String));
      }
    });

    it("refuses a registry code the caller may not use with 403, and a team's code to a team viewer", async () => {
      const res = await create(owner, { label: label(), registry_code: stranger.code }).expect(403);
      expect(res.body).toEqual({ message: `You may not use registry code ${stranger.code}.`, errors: {} });
      const viewer = await createUserWithToken(app);
      const viewed = await team([[viewer, 'viewer']]);
      await create(viewer, { label: label(), registry_code: viewed.code }).expect(403);
    });

    it('updates: bumps the version, ignores read-only fields sent back, lists sent replace lists', async () => {
      const created = (await create(owner, { label: label(), platforms: ['A', 'B'], object_type: coreId }).expect(201))
        .body.data;
      const first = await patch(owner, created.id, { label: 'Renamed', platforms: ['C'], is_archived: true }).expect(
        200,
      );
      expect(first.body.data).toMatchObject({ label: 'Renamed', platforms: ['C'], is_archived: true, version: 2 });
      expect(Date.parse(first.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
      // What a client fetched, sent back whole: read-only fields ignored, the ObjectType object accepted.
      const roundTrip = await patch(owner, created.id, first.body.data).expect(200);
      expect(roundTrip.body.data).toEqual({
        ...first.body.data,
        version: 3,
        updated_at: expect.any(String),
      });
      const cleared = await patch(owner, created.id, { object_type: null, registry_code: null }).expect(200);
      expect(cleared.body.data).toMatchObject({ object_type: null, registry_code: null, version: 4 });
      const invalid = await patch(owner, created.id, { label: 'x'.repeat(256) }).expect(400);
      expect(invalid.body.errors).toHaveProperty(['label']);
    });
  });

  describe('visibility', () => {
    let editor: TestUser;
    let viewer: TestUser;
    let teamInfo: { name: string; code: string };
    let teamTemplate: { id: number };
    let privateTemplate: { id: number };

    beforeAll(async () => {
      [editor, viewer] = await Promise.all([createUserWithToken(app), createUserWithToken(app)]);
      teamInfo = await team([
        [editor, 'editor'],
        [viewer, 'viewer'],
      ]);
      teamTemplate = (await create(editor, { label: label(), registry_code: teamInfo.code }).expect(201)).body.data;
      privateTemplate = (await create(owner, { label: label(), registry_code: owner.code }).expect(201)).body.data;
    });

    it('makes the team that owns the registry code an owner of the template', async () => {
      const res = await http().get(`/api/batch-templates/${teamTemplate.id}/`).set(viewer.auth).expect(200);
      expect(res.body.data).toMatchObject({ team_owner: teamInfo.name, registry_code: teamInfo.code });
    });

    it('lists own and team templates, newest first, filtered by is_archived; staff see all', async () => {
      const archived = (await create(viewer, { label: label(), is_archived: true }).expect(201)).body.data;
      const all = await http().get('/api/batch-templates/').set(viewer.auth).expect(200);
      expect(all.body.data.map((t: { id: number }) => t.id)).toEqual([archived.id, teamTemplate.id]);
      expect(all.body.data[1]).toEqual({
        id: teamTemplate.id,
        label: expect.any(String),
        registry_code: teamInfo.code,
        object_type: null,
        user_owner: 'Test User',
        team_owner: teamInfo.name,
        created_by: editor.userId,
        created_date: expect.stringMatching(/Z$/),
        is_archived: false,
      });
      const active = await http().get('/api/batch-templates/?is_archived=false').set(viewer.auth).expect(200);
      expect(active.body.data.map((t: { id: number }) => t.id)).toEqual([teamTemplate.id]);
      const onlyArchived = await http().get('/api/batch-templates/?is_archived=true').set(viewer.auth).expect(200);
      expect(onlyArchived.body.data.map((t: { id: number }) => t.id)).toEqual([archived.id]);
      await http().get('/api/batch-templates/?is_archived=maybe').set(viewer.auth).expect(400);

      const strangers = await http().get('/api/batch-templates/').set(stranger.auth).expect(200);
      const seen = strangers.body.data.map((t: { id: number }) => t.id);
      expect(seen).not.toContain(teamTemplate.id);
      expect(seen).not.toContain(privateTemplate.id);
      const staff = await createUserWithToken(app, { isStaff: true });
      const everything = await http().get('/api/batch-templates/').set(staff.auth).expect(200);
      expect(everything.body.data.map((t: { id: number }) => t.id)).toEqual(
        expect.arrayContaining([teamTemplate.id, privateTemplate.id, archived.id]),
      );
    });

    it('answers 404 to strangers on detail, update and spreadsheet, and 401 without a token', async () => {
      for (const path of [`${privateTemplate.id}/`, `${teamTemplate.id}/`, `${teamTemplate.id}/spreadsheet/`]) {
        const res = await http().get(`/api/batch-templates/${path}`).set(stranger.auth).expect(404);
        expect(res.body).toEqual({ message: 'Batch template not found.', errors: {} });
      }
      await patch(stranger, teamTemplate.id, { label: 'mine now' }).expect(404);
      await http().get('/api/batch-templates/abc/').set(owner.auth).expect(404);
      await http().get('/api/batch-templates/99999999/').set(owner.auth).expect(404);
      await http().get(`/api/batch-templates/${teamTemplate.id}/`).expect(401);
    });

    it('lets team editors and staff update, and refuses team viewers with 403', async () => {
      const res = await patch(viewer, teamTemplate.id, { label: 'viewer edit' }).expect(403);
      expect(res.body).toEqual({ message: 'You may not edit this batch template.', errors: {} });
      await patch(editor, teamTemplate.id, { label: 'editor edit' }).expect(200);
      const staff = await createUserWithToken(app, { isStaff: true });
      const edited = await patch(staff, privateTemplate.id, { label: 'staff edit' }).expect(200);
      expect(edited.body.data.user_owner).toBe('Test User');
    });
  });

  describe('spreadsheet', () => {
    it('downloads the workbook: headers, Metadata, and a dropdown on the Object Type column', async () => {
      const selected = ['general_material_type', 'country', 'platform_label', 'sampling_date_precision'];
      const template = (
        await create(owner, {
          label: 'Cruise AT-42 / cores',
          registry_code: owner.code,
          object_type: coreId,
          selected_fields: selected,
          platforms: ['R/V Atlantis'],
        }).expect(201)
      ).body.data;
      await patch(owner, template.id, { label: 'Cruise AT-42 / cores' }).expect(200); // version 2

      const { res, body } = await downloadWorkbook(owner, template.id);
      expect(res.headers['content-type']).toBe(XLSX_TYPE);
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="batch-template-${template.id}-v2-cruise-at-42-cores.xlsx"`,
      );
      expect(body.length).toBeLessThan(1024 * 1024);

      const book = XLSX.read(body, { type: 'buffer', bookFiles: true }) as XLSX.WorkBook & {
        Directory: { sheets: string[] };
        files: Record<string, { content: Uint8Array }>;
      };
      expect(book.SheetNames).toEqual(['Cover Page', 'Metadata', 'Samples', 'Lookups']);
      const [header] = XLSX.utils.sheet_to_json<string[]>(book.Sheets.Samples, { header: 1 });
      expect(header).toEqual(templateColumns(selected).map((field) => field.label));
      expect(header).toEqual(expect.arrayContaining(['Object Type', 'Country', 'Platform Name']));
      expect(XLSX.utils.sheet_to_json<string[]>(book.Sheets.Metadata, { header: 1 })).toEqual([
        ['registry_code', owner.code],
        ['object_type', 'Core'],
        ['template_id', String(template.id)],
        ['template_version', '2'],
      ]);

      // SheetJS's free build does not parse data validations: read them from the sheet's XML.
      const samplesXml = Buffer.from(book.files[book.Directory.sheets[2].slice(1)].content).toString('utf8');
      const objectTypeDropdown =
        /<dataValidation [^>]*sqref="A2:A100001"[^>]*><formula1>Lookups!\$([A-Z]+)\$2:\$\1\$(\d+)<\/formula1>/.exec(
          samplesXml,
        );
      expect(objectTypeDropdown).not.toBeNull();
      const [, column, lastRow] = objectTypeDropdown ?? [];
      const lookups = book.Sheets.Lookups;
      const offered = Array.from(
        { length: Number(lastRow) - 1 },
        (_, i) => (lookups[`${column}${i + 2}`] as XLSX.CellObject | undefined)?.v,
      );
      expect(offered).toContain('Core');
      // every term is offered: the most specific one that fits is the right one, leaf or not
      expect(offered).toContain('Thin section');
      expect(offered).toContain('Polished thin section');
      expect(samplesXml).toMatch(/sqref="[A-Z]+2:[A-Z]+100001"><formula1>Lookups!/); // more than one dropdown
    });

    it('lets a team viewer download the team template, which asks for the object type per row', async () => {
      const viewer = await createUserWithToken(app);
      const { code } = await team([[viewer, 'viewer']]);
      const staff = await createUserWithToken(app, { isStaff: true });
      const template = (await create(staff, { label: label(), registry_code: code }).expect(201)).body.data;
      const { body } = await downloadWorkbook(viewer, template.id);
      const metadata = XLSX.utils.sheet_to_json<string[]>(XLSX.read(body).Sheets.Metadata, { header: 1 });
      expect(metadata[1]).toEqual(['object_type', 'Enter per sample in spreadsheet']);
    });
  });

  it('documents the endpoints in the OpenAPI document', async () => {
    const { body } = await http().get('/api/schema').expect(200);
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        '/api/batch-templates',
        '/api/batch-templates/{id}',
        '/api/batch-templates/{id}/spreadsheet',
        '/api/batch-templates/fields',
      ]),
    );
    expect(body.paths['/api/batch-templates/fields'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SampleFieldListResponse',
    });
    const download = body.paths['/api/batch-templates/{id}/spreadsheet'].get;
    expect(download.tags).toEqual(['batch-templates']);
    expect(Object.keys(download.responses['200'].content)).toEqual([XLSX_TYPE]);
    expect(download.responses['404'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBody');
    expect(body.components.schemas).toHaveProperty(['BatchTemplateRead']);
    expect(body.components.schemas).toHaveProperty(['BatchTemplateWrite']);
  });
});
