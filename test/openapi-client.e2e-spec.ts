import { INestApplication } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { createRegistrant } from './support/auth';
import { createTestApp } from './support/test-app';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');
const CLIENT_DIR = join(__dirname, 'openapi-client');
const GENERATED = join(CLIENT_DIR, 'generated');

/**
 * What an integrator does with openapi/openapi.json: generate TypeScript types with
 * openapi-typescript, write a client with openapi-fetch (test/openapi-client/client.ts), compile
 * it under `strict`, and call the API. A document that does not describe the API as it answers
 * fails here: types that do not compile, a path that 404s, a body of another shape.
 */
describe('a typed client generated from openapi/openapi.json', () => {
  let app: INestApplication;
  let baseUrl: string;

  beforeAll(async () => {
    app = await createTestApp();
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
    rmSync(GENERATED, { recursive: true, force: true });
  });

  it('compiles strictly and fetches, searches and gets a typed 404 error body', async () => {
    // The generator's command line, as docs/development.md shows it (it runs as a plain Node process, not in Jest).
    mkdirSync(GENERATED, { recursive: true });
    await run(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
        join(ROOT, 'openapi', 'openapi.json'),
        '--output',
        join(GENERATED, 'schema.d.ts'),
      ],
      { cwd: ROOT },
    );
    await run(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(CLIENT_DIR, 'tsconfig.json')],
      {
        cwd: ROOT,
      },
    ).catch((error: { stdout?: string; message: string }) => {
      throw new Error(`the generated client does not compile:\n${error.stdout ?? error.message}`);
    });

    const owner = await createRegistrant(app);
    const name = `Typed client core ${owner.code}`;
    const created = await request(app.getHttpServer())
      .post('/api/samples/')
      .set(owner.auth)
      .send({ registry_code: owner.code, name, object_type: 'Core', latitude: 41.5, longitude: -72.8 })
      .expect(201);
    const igsn = created.body.data.igsn as string;

    const { stdout } = await run(process.execPath, [join(GENERATED, 'out', 'client.js'), baseUrl, igsn], {
      cwd: ROOT,
    });
    const result = JSON.parse(stdout);
    expect(result.fetched).toEqual({ igsn, name });
    // The search by the unique name finds exactly this sample (count is a number; it may be an estimate).
    expect(result.search.igsns).toEqual([igsn]);
    expect(typeof result.search.count).toBe('number');
    expect(result.missing).toEqual({ status: 404, message: 'Sample not found.', errors: {} });
  }, 120_000);
});
