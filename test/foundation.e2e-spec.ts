import { INestApplication } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import request from 'supertest';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../src/core/openapi/openapi-document';
import { createTestApp } from './support/test-app';
import { ProbeController } from './support/probe.controller';
import { TcpProxy } from './support/tcp-proxy';
import { serverUrls, testConfig } from './support/test-environment';

describe('HTTP plumbing', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp({ controllers: [ProbeController], config: testConfig({ BODY_LIMIT: '2kb' }) });
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers liveness with and without the trailing slash, with a request id', async () => {
    for (const path of ['/api/health/', '/api/health']) {
      const res = await request(app.getHttpServer()).get(path).expect(200);
      expect(res.body).toEqual({ data: { status: 'ok', checks: {} } });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('echoes a caller-supplied request id and replaces an unsafe one', async () => {
    const kept = await request(app.getHttpServer()).get('/api/health/').set('X-Request-Id', 'abc-123').expect(200);
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await request(app.getHttpServer()).get('/api/health/').set('X-Request-Id', 'bad id <script>');
    expect(replaced.headers['x-request-id']).not.toBe('bad id <script>');
  });

  it('is ready when PostgreSQL and Redis answer', async () => {
    const res = await request(app.getHttpServer()).get('/api/health/ready/').expect(200);
    expect(res.body).toEqual({ data: { status: 'ok', checks: { database: 'up', redis: 'up' } } });
  });

  it('answers an unknown route with 404 in the error body', async () => {
    const res = await request(app.getHttpServer()).get('/api/no-such-thing/').expect(404);
    expect(res.body).toEqual({ message: 'No route matches GET /api/no-such-thing/.', errors: {} });
  });

  it('answers malformed JSON with 400 in the error body', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/test-probe/echo/')
      .set('Content-Type', 'application/json')
      .send('{"latitude": 1,')
      .expect(400);
    expect(res.body).toEqual({ message: 'Malformed JSON in request body.', errors: {} });
  });

  it('answers a body over the limit with 413 in the error body', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/test-probe/echo/')
      .send({ latitude: 1, padding: 'x'.repeat(4096) })
      .expect(413);
    expect(res.body).toEqual({ message: 'Request body is larger than the limit of 2048 bytes.', errors: {} });
  });

  it('answers a body in a media type the route does not read with 415', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/test-probe/echo/')
      .set('Content-Type', 'text/plain')
      .send('latitude=1')
      .expect(415);
    expect(res.body.message).toMatch(/Unsupported media type "text\/plain"/);
    expect(res.body.errors).toEqual({});
  });

  it('names every invalid field by its path, nested and in lists', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/test-probe/echo/')
      .send({
        latitude: 91,
        collectors: [{ individual: { label: 'ok' } }, { individual: { label: 'too long' } }],
        extra: 1,
      })
      .expect(400);
    expect(res.body.message).toMatch(/^Validation failed: /);
    expect(Object.keys(res.body.errors).sort()).toEqual(['collectors.1.individual.label', 'extra', 'latitude']);
    expect(res.body.errors.extra).toEqual(['This field is not allowed.']);
    expect(res.body.errors.latitude).toEqual(['latitude must not be greater than 90']);
  });

  it('accepts a valid body', async () => {
    const res = await request(app.getHttpServer()).post('/api/test-probe/echo').send({ latitude: 12.5 }).expect(201);
    expect(res.body).toEqual({ data: { latitude: 12.5 } });
  });

  it('answers an unexpected error with 500 and no internals', async () => {
    const res = await request(app.getHttpServer()).post('/api/test-probe/explode/').expect(500);
    expect(res.body).toEqual({ message: 'Internal server error.', errors: {} });
    expect(JSON.stringify(res.body)).not.toMatch(/secret internal detail|at /);
  });

  it('sends security headers', async () => {
    const res = await request(app.getHttpServer()).get('/api/health/').expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('OpenAPI document', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  it('serves an OpenAPI 3 document as JSON and YAML', async () => {
    const json = await request(app.getHttpServer()).get('/api/schema').expect(200);
    expect(json.headers['content-type']).toMatch(/application\/json/);
    expect(json.body.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(json.body.info.version).toBe('1.0.0');
    expect(json.body.components.securitySchemes.bearer).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(json.body.paths['/api/health/ready']).toBeDefined();

    const yaml = await request(app.getHttpServer()).get('/api/schema/?format=yaml').expect(200);
    expect(yaml.headers['content-type']).toMatch(/application\/yaml/);
    expect(load(yaml.text)).toEqual(json.body);

    const bad = await request(app.getHttpServer()).get('/api/schema?format=xml').expect(400);
    expect(bad.body.errors).toEqual({ format: ['must be json or yaml'] });
  });

  it('answers the API root with links instead of a 404', async () => {
    for (const path of ['/api/', '/api']) {
      const res = await request(app.getHttpServer()).get(path).expect(200);
      expect(res.body.data.links).toEqual({
        schema: '/api/schema',
        docs: '/api/docs',
        health: '/api/health/',
        ready: '/api/health/ready/',
        samples: '/api/samples/',
      });
      for (const link of Object.values(res.body.data.links as Record<string, string>))
        await request(app.getHttpServer()).get(link).expect(200);
    }
  });

  it('documents the Idempotency-Key header once, as optional, on the endpoints that create jobs', async () => {
    const document = (await request(app.getHttpServer()).get('/api/schema').expect(200)).body;
    for (const path of ['/api/batches/upload', '/api/samples/export']) {
      const headers = (document.paths[path].post.parameters as { in: string; name: string; required?: boolean }[])
        .filter((parameter) => parameter.in === 'header')
        .map(({ name, required }) => ({ name: name.toLowerCase(), required: required ?? false }));
      expect(headers).toEqual([{ name: 'idempotency-key', required: false }]);
    }
  });

  it('serves Swagger UI', async () => {
    const res = await request(app.getHttpServer()).get('/api/docs/').expect(200);
    expect(res.text).toMatch(/swagger-ui/i);
  });

  it('matches the committed openapi/openapi.json (run `npm run openapi` after changing the API)', () => {
    const committed = readFileSync(join(__dirname, '..', 'openapi', 'openapi.json'), 'utf8');
    expect(serializeOpenApiDocument(buildOpenApiDocument(app))).toBe(committed);
  });
});

describe('readiness when a dependency is down', () => {
  it('answers 503 naming Redis while it is unreachable, and 200 again once it returns', async () => {
    const redisUrl = new URL(serverUrls().redis);
    const proxy = new TcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    await proxy.start();
    const proxied = new URL(serverUrls().redis);
    proxied.port = String(proxy.port);
    const app = await createTestApp({ config: testConfig({ REDIS_URL: proxied.toString() }) });
    try {
      await request(app.getHttpServer()).get('/api/health/ready/').expect(200);

      await proxy.stop();
      const down = await request(app.getHttpServer()).get('/api/health/ready/').expect(503);
      expect(down.body.message).toBe('Not ready: redis is unavailable.');
      expect(Object.keys(down.body.errors)).toEqual(['redis']);

      await proxy.start();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await request(app.getHttpServer()).get('/api/health/ready/')).status;
      }
      expect(status).toBe(200);
    } finally {
      await app.close();
      await proxy.stop();
    }
  });

  it('answers 503 naming Redis when it was never reachable (a closed port)', async () => {
    const app = await createTestApp({ config: testConfig({ REDIS_URL: 'redis://127.0.0.1:1/0' }) });
    try {
      const res = await request(app.getHttpServer()).get('/api/health/ready/').expect(503);
      expect(res.body.message).toBe('Not ready: redis is unavailable.');
      expect(res.body.errors.redis).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
