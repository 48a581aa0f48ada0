import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createRegistrant, createUserWithToken } from './support/auth';
import { createTestApp } from './support/test-app';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
interface Node {
  visible: boolean;
  igsn?: string;
  name?: string;
  object_type?: string | null;
  children?: Node[];
}

describe('sample lineage (GET /api/samples/{igsn}/lineage/)', () => {
  let app: INestApplication;
  let owner: Registrant;
  let stranger: { auth: { Authorization: string } };
  const http = () => request(app.getHttpServer());
  const s: Record<string, { igsn: string; name: string }> = {};

  const register = async (key: string, body: Record<string, unknown> = {}) => {
    const res = await http()
      .post('/api/samples/')
      .set(owner.auth)
      .send({
        registry_code: owner.code,
        object_type: 'Core',
        name: `Lineage ${key}`,
        latitude: 1,
        longitude: 2,
        ...body,
      })
      .expect(201);
    s[key] = res.body.data as { igsn: string; name: string };
    return s[key];
  };
  const lineage = (igsn: string, query: Record<string, string> = {}, auth?: { Authorization: string }) => {
    const req = http().get(`/api/samples/${igsn}/lineage/`).query(query);
    return auth ? req.set(auth) : req;
  };
  const shown = (key: string): Node => ({ visible: true, igsn: s[key].igsn, name: s[key].name, object_type: 'Core' });

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createRegistrant(app);
    stranger = await createUserWithToken(app);
    // root ─┬─ c1 ── g1
    //       ├─ c2 (draft) ── g2
    //       └─ c3 (deactivated)
    await register('root');
    await register('c1', { parent_sample: s.root.igsn });
    await register('g1', { parent_sample: s.c1.igsn });
    await register('c2', { parent_sample: s.root.igsn, is_draft: true });
    await register('g2', { parent_sample: s.c2.igsn });
    await register('c3', { parent_sample: s.root.igsn });
    await http().post(`/api/samples/${s.c3.igsn}/deactivate/`).set(owner.auth).send({ reason: 'other' }).expect(200);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('shows hidden parents and children only as {visible: false}, keeping their place in the tree', async () => {
    const anonymous = (await lineage(s.root.igsn).expect(200)).body.data;
    expect(anonymous).toEqual({
      igsn: s.root.igsn,
      name: s.root.name,
      object_type: 'Core',
      direction: 'both',
      depth: 5,
      truncated: false,
      ancestors: [],
      descendants: [
        { ...shown('c1'), children: [shown('g1')] },
        { visible: false, children: [shown('g2')] },
        { visible: false },
      ],
    });
    const mine = (await lineage(s.root.igsn, {}, owner.auth).expect(200)).body.data;
    expect(mine.descendants[1]).toEqual({ ...shown('c2'), children: [shown('g2')] });
    expect(mine.descendants[2]).toEqual({ visible: false }); // deactivated: hidden from everyone
    const strangers = (await lineage(s.root.igsn, {}, stranger.auth).expect(200)).body.data;
    expect(strangers.descendants).toEqual(anonymous.descendants);

    const up = (await lineage(s.g2.igsn, { direction: 'ancestors' }).expect(200)).body.data;
    expect(up.ancestors).toEqual([{ visible: false }, shown('root')]);
    expect(up).not.toHaveProperty('descendants');
    const down = (await lineage(s.g1.igsn, { direction: 'descendants' }).expect(200)).body.data;
    expect(down.descendants).toEqual([]);
    expect(down).not.toHaveProperty('ancestors');
  });

  it('stops at the depth asked and says so; answers the DOI form of the path too', async () => {
    const shallow = (await lineage(s.root.igsn, { depth: '1' }).expect(200)).body.data;
    expect(shallow.truncated).toBe(true);
    expect(shallow.descendants).toEqual([shown('c1'), { visible: false }, { visible: false }]);
    const [prefix, suffix] = s.g1.igsn.split('/');
    const byDoi = (await http().get(`/api/samples/${prefix}/${suffix}/lineage/`).expect(200)).body.data;
    expect(byDoi.ancestors).toEqual([shown('c1'), shown('root')]);
    expect(byDoi.truncated).toBe(false);
  });

  it('walks at most 20 levels', async () => {
    let parent = s.root.igsn;
    for (let level = 1; level <= 21; level++) parent = (await register(`deep${level}`, { parent_sample: parent })).igsn;
    const up = (await lineage(parent, { direction: 'ancestors', depth: '20' }).expect(200)).body.data;
    expect(up.ancestors).toHaveLength(20);
    expect(up.ancestors[0]).toEqual(shown('deep20'));
    expect(up.truncated).toBe(true);
    const all = (await lineage(s.deep1.igsn, { direction: 'ancestors', depth: '20' }).expect(200)).body.data;
    expect(all).toMatchObject({ ancestors: [shown('root')], truncated: false });
  }, 120_000);

  it('holds at most 10,000 nodes and says it was cut', async () => {
    const parent = await register('crowded');
    await app.get(DataSource).query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, publish_date,
                           user_owner_id, created_by, parent_sample_id, latitude, longitude)
       SELECT $1 || 'Y' || lpad(upper(to_hex(n)), 4, '0'), $1, 'Crowd ' || n,
              (SELECT id FROM object_type WHERE label = 'Core'), 'published', now(), $2, $2,
              (SELECT id FROM sample WHERE igsn = $4), 1, 2
         FROM generate_series(1, $3) AS n`,
      [owner.code, owner.userId, 10_005, parent.igsn.split('/').pop()],
    );
    const crowded = (await lineage(parent.igsn, { direction: 'descendants', depth: '1' }).expect(200)).body.data;
    expect(crowded.descendants).toHaveLength(10_000);
    expect(crowded.truncated).toBe(true);
  }, 60_000);

  it('refuses bad parameters with 400 and hides samples as fetch does', async () => {
    const queries: Record<string, string>[] = [
      { depth: '0' },
      { depth: '21' },
      { depth: 'two' },
      { direction: 'sideways' },
      { colour: 'red' },
    ];
    for (const query of queries) {
      const res = await lineage(s.root.igsn, query).expect(400);
      expect(Object.keys(res.body.errors)).toEqual([Object.keys(query)[0]]);
    }
    await lineage(s.c2.igsn).expect(401);
    await lineage(s.c2.igsn, {}, stranger.auth).expect(404);
    await lineage('IEZZZNOSUCH').expect(404);
  });

  it('shows the parent chain and the number of public subsamples on landing pages', async () => {
    const leaf = await http().get(`/samples/${s.g1.igsn}`).expect(200);
    expect(leaf.text).toContain('Lineage: ');
    expect(leaf.text).toMatch(new RegExp(`${s.root.igsn}</a> › <a [^>]*>${s.c1.igsn}</a> › ${s.g1.igsn}`));
    const root = await http().get(`/samples/${s.root.igsn}`).expect(200);
    expect(root.text).toContain('Subsamples (2)'); // c1 and deep1: c2 is a draft, c3 deactivated
    expect(root.text).toContain('/lineage/?direction=descendants');
  });
});
