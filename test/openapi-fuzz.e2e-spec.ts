import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import openapi from '../openapi/openapi.json';
import { createRegistrant } from './support/auth';
import { createTestApp } from './support/test-app';

type Schema = {
  $ref?: string;
  type?: string;
  example?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
};
type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema?: Schema; example?: unknown }> };
};

const document = openapi as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

/** Values issue 21 found answered 500 somewhere (or stored wrongly), and their relatives. */
const HOSTILE_TEXT = ['A\uFE0F'.repeat(300), '2024-W05', '-'.repeat(36)];
const HOSTILE_NUMBERS = [99_999_999_999, 1e300, 1.5];
const HOSTILE_IDS = ['0', '99999999999', '-'.repeat(36), '1e300', 'A%EF%B8%8F'.repeat(40), '%F0%9F%92%A9'];

function resolve(schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref) return resolve(document.components.schemas[schema.$ref.split('/').pop() ?? '']);
  if (schema.allOf?.length) return schema.allOf.reduce<Schema>((merged, part) => ({ ...merged, ...resolve(part) }), {});
  return schema;
}

/** A body following the schema: documented examples where there are, else a value of the type. */
function sampleOf(input: Schema | undefined, depth = 0): unknown {
  const schema = resolve(input);
  if (schema.example !== undefined) return schema.example;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.oneOf?.length) return sampleOf(schema.oneOf[0], depth);
  if (depth > 4) return null;
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, property]) => [key, sampleOf(property, depth + 1)]),
      );
    case 'array':
      return [sampleOf(schema.items, depth + 1)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return schema.properties ? sampleOf({ ...schema, type: 'object' }, depth) : 'x';
  }
}

/**
 * Bodies that differ from `body` in one leaf each: every string leaf set to each of `texts`, every
 * number to each of `numbers`.
 */
function oneLeafMutations(body: unknown, texts: string[], numbers: number[]): unknown[] {
  if (Array.isArray(body)) {
    const items = body as unknown[];
    return items.flatMap((item, index) =>
      oneLeafMutations(item, texts, numbers).map((changed) => items.map((old, i) => (i === index ? changed : old))),
    );
  }
  if (body !== null && typeof body === 'object') {
    return Object.entries(body).flatMap(([key, child]) =>
      oneLeafMutations(child, texts, numbers).map((changed) => ({ ...body, [key]: changed })),
    );
  }
  if (typeof body === 'string') return texts;
  if (typeof body === 'number') return numbers;
  return [];
}

/** Calls that end the caller's own tokens would blind the rest of the run; they are exercised elsewhere. */
const SKIPPED = new Set(['delete /api/auth/token/blacklist-all']);

/**
 * Every operation of the OpenAPI document, with its documented body and with hostile values in
 * every path parameter, query parameter and body leaf: never a 5xx (issue 21, "How it is shown").
 */
describe('OpenAPI fuzz: no operation answers 5xx to hostile values', () => {
  let app: INestApplication;
  let auth: { Authorization: string };
  /** Path parameters naming a row that exists, so body mutations reach the service and the database. */
  const real: Record<string, string> = { id: '1', connection: 'none' };

  beforeAll(async () => {
    app = await createTestApp();
    const registrant = await createRegistrant(app, { isStaff: true });
    auth = registrant.auth;
    const created = await request(app.getHttpServer())
      .post('/api/samples/')
      .set(auth)
      .send({ registry_code: registrant.code, name: 'fuzz target', object_type: 'Core', latitude: 1, longitude: 2 })
      .expect(201);
    const igsn = created.body.data.igsn as string;
    const [prefix, suffix] = igsn.includes('/') ? igsn.split('/') : ['10.5072', igsn];
    Object.assign(real, { igsn: suffix, prefix, suffix });
  });

  afterAll(async () => {
    await app.close();
  });

  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
      .filter(([method]) => !SKIPPED.has(`${method} ${path}`))
      .map(([method, operation]) => ({ method, path, operation })),
  );

  jest.setTimeout(180_000);

  it.each(operations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    '%s',
    async (_name, { method, path, operation }) => {
      const failures: string[] = [];
      const jsonBody = operation.requestBody?.content['application/json'];
      const baseBody = jsonBody ? (jsonBody.example ?? sampleOf(jsonBody.schema)) : undefined;
      const bodies: unknown[] = baseBody === undefined ? [undefined] : [baseBody];
      if (baseBody !== undefined) {
        bodies.push(...oneLeafMutations(baseBody, HOSTILE_TEXT, HOSTILE_NUMBERS));
        bodies.push({ constructor: { prototype: 1 }, ...(baseBody as object) });
      }
      const queryNames = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const queries: Record<string, string>[] = [{}];
      for (const text of [...HOSTILE_TEXT, '99999999999', Array(60).fill('x').join(',')]) {
        if (queryNames.length) queries.push(Object.fromEntries(queryNames.map((name) => [name, text])));
      }
      // The hostile ids with the documented body; every body with ids of rows that exist.
      const urls = path.includes('{')
        ? HOSTILE_IDS.map((id) => ({ url: path.replace(/\{[^}]+\}/g, id), bodies: bodies.slice(0, 1) }))
        : [];
      urls.push({ url: path.replace(/\{([^}]+)\}/g, (_, name: string) => real[name] ?? '1'), bodies });
      for (const { url, bodies: sent } of urls) {
        for (const body of sent) {
          for (const query of body === bodies[0] ? queries : [{}]) {
            let req = request(app.getHttpServer())[method as 'get'](url).set(auth).query(query);
            if (body !== undefined) req = req.send(body as object);
            const res = await req;
            if (res.status >= 500) {
              failures.push(
                `${res.status} ${method.toUpperCase()} ${url}?${new URLSearchParams(query).toString().slice(0, 80)} ` +
                  `${JSON.stringify(body)?.slice(0, 120)} → ${JSON.stringify(res.body).slice(0, 200)}`,
              );
            }
          }
        }
      }
      expect(failures).toEqual([]);
    },
  );
});
