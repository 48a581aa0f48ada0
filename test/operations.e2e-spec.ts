import { INestApplication } from '@nestjs/common';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { ProbeController } from './support/probe.controller';
import { createUserWithToken } from './support/auth';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

const METRICS_TOKEN = 'api-metrics-token-0123456789';

/** What an operator relies on: metrics, the request log, the staff queue view. */
describe('operations', () => {
  describe('without METRICS_TOKEN', () => {
    let app: INestApplication;
    beforeAll(async () => {
      app = await createTestApp();
    });
    afterAll(async () => {
      await app.close();
    });

    it('has no /metrics (404 error body)', async () => {
      const response = await request(app.getHttpServer()).get('/metrics').expect(404);
      expect(response.body).toEqual({ message: expect.any(String), errors: {} });
    });
  });

  describe('with METRICS_TOKEN and an info log', () => {
    let app: INestApplication;
    const lines: string[] = [];
    const http = () => request(app.getHttpServer());

    beforeAll(async () => {
      const stream = new PassThrough();
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const complete = buffered.split('\n');
        buffered = complete.pop() ?? '';
        lines.push(...complete.filter(Boolean));
      });
      app = await createTestApp({
        config: testConfig({ METRICS_TOKEN, LOG_LEVEL: 'info' }),
        logStream: stream,
        controllers: [ProbeController],
      });
    });
    afterAll(async () => {
      await app.close();
    });

    /** The parsed log lines of one request (its X-Request-Id); waits briefly for the response's line. */
    async function linesOf(reqId: string, count = 1): Promise<Record<string, unknown>[]> {
      for (let i = 0; i < 50; i++) {
        const found = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.reqId === reqId);
        if (found.length >= count) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`fewer than ${count} log lines for ${reqId}:\n${lines.join('\n')}`);
    }

    it('refuses /metrics without the token, with the API error body', async () => {
      for (const auth of [undefined, 'Bearer wrong-token', `Token ${METRICS_TOKEN}`]) {
        const call = http().get('/metrics');
        if (auth) void call.set('Authorization', auth);
        const response = await call.expect(401);
        expect(response.body).toEqual({
          message: 'Metrics need the Authorization header "Bearer <METRICS_TOKEN>".',
          errors: {},
        });
      }
    });

    it('serves Prometheus text: request durations by route template, pool and queue gauges, statements sent', async () => {
      await http().get('/api/samples/IENOSUCH0001/').expect(404);
      const response = await http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = response.text;
      expect(text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(text).toMatch(
        /^http_request_duration_seconds_count\{method="GET",route="\/api\/samples\/:igsn",status="404"\} [1-9]\d*$/m,
      );
      expect(text).not.toContain('IENOSUCH0001');
      expect(text).toMatch(/^db_pool_connections_in_use \d+$/m);
      expect(text).toMatch(/^db_pool_waiting_requests \d+$/m);
      // The 404 above looked the IGSN up: at least that statement went through the primary pool.
      expect(text).toContain('# TYPE db_statements_total counter');
      expect(text).toMatch(/^db_statements_total\{pool="primary"\} [1-9]\d*$/m);
      for (const queue of ['batch-registration', 'sample-export']) {
        for (const state of ['waiting', 'active', 'failed', 'delayed']) {
          expect(text).toMatch(new RegExp(`^queue_jobs\\{queue="${queue}",state="${state}"\\} \\d+$`, 'm'));
        }
      }
      expect(text).toContain('# TYPE queue_job_duration_seconds histogram');
    });

    it('logs one short JSON line per request: route, status, duration, ids, IP; secrets in the query redacted', async () => {
      const user = await createUserWithToken(app);
      await http()
        .get('/api/users/me/?q=rock&token=abc.def.ghi&password=hunter2&page_size=5')
        .set(user.auth)
        .set('X-Request-Id', 'ops-log-1')
        .expect(200);
      const [line] = await linesOf('ops-log-1');
      expect(line).toMatchObject({
        level: 30,
        msg: 'request completed',
        method: 'GET',
        route: '/api/users/me',
        url: '/api/users/me/?q=rock&token=[redacted]&password=[redacted]&page_size=5',
        status: 200,
        userId: user.userId,
        ip: expect.stringMatching(/127\.0\.0\.1/),
        durationMs: expect.any(Number),
      });
      expect(line).not.toHaveProperty('req');
      expect(line).not.toHaveProperty('res');
      const raw = lines.find((text) => text.includes('"reqId":"ops-log-1"')) ?? '';
      expect(raw).not.toContain('abc.def.ghi');
      expect(raw).not.toContain('hunter2');
      expect(raw).not.toContain(user.accessToken);
      expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(400);
    });

    it('logs a failing SQL statement as JSON through pino, with the request id', async () => {
      await http().post('/api/test-probe/bad-query/').set('X-Request-Id', 'ops-log-2').expect(500);
      const requestLines = await linesOf('ops-log-2', 2);
      const typeorm = requestLines.find((line) => line.context === 'TypeORM');
      expect(typeorm).toMatchObject({ level: 50 });
      expect(String(typeorm?.msg)).toContain('relation "table_that_does_not_exist" does not exist');
      expect(requestLines.find((line) => line.msg === 'request failed')).toMatchObject({ status: 500 });
      for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    });

    it('shows the queues to staff only', async () => {
      await http().get('/api/queues/').expect(401);
      const user = await createUserWithToken(app);
      const refused = await http().get('/api/queues/').set(user.auth).expect(403);
      expect(refused.body).toEqual({ message: 'Only staff can see the queues.', errors: {} });
      const staff = await createUserWithToken(app, { isStaff: true });
      const response = await http().get('/api/queues/').set(staff.auth).expect(200);
      expect(response.body.data.map((row: { queue: string }) => row.queue)).toEqual([
        'batch-registration',
        'sample-export',
        'doi-registration',
        'label-sheet',
        'ownership-transfer',
        'sample-reservation',
      ]);
      for (const row of response.body.data) {
        for (const state of ['waiting', 'active', 'delayed', 'failed', 'completed']) {
          expect(row[state]).toEqual(expect.any(Number));
        }
      }
    });
  });
});
