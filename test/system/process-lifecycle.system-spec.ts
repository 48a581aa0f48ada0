import { INestApplication } from '@nestjs/common';
import { connect, Socket } from 'node:net';
import { TestUser, createUserWithToken } from '../support/auth';
import { ServiceProcess, freePort, serviceEnv, startServiceProcess } from '../support/service-process';
import { createTestApp } from '../support/test-app';
import { testKeyPrefix } from '../support/test-environment';
import { IsolatedDatabase, createIsolatedDatabase } from '../support/isolated-database';

/** One HTTP/1.1 request on a fresh connection; resolves with the status, or rejects (e.g. ECONNREFUSED). */
async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Connection: 'close' } });
  return { status: res.status, body: await res.text() };
}

/**
 * What a brand-new TCP connection to the port gets: `connected`, or the error code. A fresh socket,
 * not fetch: fetch may reuse a kept-alive connection, which the draining server resets.
 */
async function refused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
  });
}

/** Collects everything a raw socket receives until the server closes it. */
function received(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('process lifecycle: graceful deploys and a supervised start', () => {
  let app: INestApplication;
  let user: TestUser;
  const running: ServiceProcess[] = [];
  const databases: IsolatedDatabase[] = [];

  beforeAll(async () => {
    app = await createTestApp();
    user = await createUserWithToken(app);
  });

  afterAll(async () => {
    for (const process of running) await process.kill();
    for (const database of databases) await database.drop();
    await app.close();
  });

  it('on SIGTERM: readiness 503 at once, in-flight requests finish, new connections refused only after the drain', async () => {
    const port = await freePort();
    const api = await startServiceProcess(
      'main',
      serviceEnv({ PORT: String(port), HOST: '127.0.0.1', SHUTDOWN_DRAIN_SECONDS: '2', SHUTDOWN_GRACE_SECONDS: '20' }),
      'API listening',
    );
    running.push(api);
    expect((await get(port, '/api/health/ready/')).status).toBe(200);

    // A sign-in whose body is still arriving when the deploy's SIGTERM comes.
    const body = JSON.stringify({ email: user.email, password: user.password });
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const response = received(socket);
    // `Expect: 100-continue`: the server answers "100 Continue" once it has parsed the headers, so
    // the request is known to be in flight before the SIGTERM (no pause that a slow machine outruns).
    const continued = new Promise<void>((resolve) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('100 Continue\r\n\r\n')) {
          socket.off('data', onData);
          resolve();
        }
      };
      socket.on('data', onData);
    });
    socket.write(
      `POST /api/auth/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Expect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    await continued;
    socket.write(body.slice(0, 10));
    api.child.kill('SIGTERM');
    await api.waitForOutput('draining');

    const ready = await get(port, '/api/health/ready/');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({
      message: 'Not ready: this API process is shutting down.',
      errors: { process: ['draining before shutdown'] },
    });
    // Still serving while the load balancer takes the process out of rotation.
    expect((await get(port, '/api/health/')).status).toBe(200);

    await api.waitForOutput('Port closed');
    expect(await refused(port)).toBe('ECONNREFUSED');
    expect(api.child.exitCode).toBeNull();

    socket.write(body.slice(10));
    const raw = (await response).replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK/);
    const json = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { data: { access: string } };
    expect(json.data.access).toEqual(expect.any(String));

    expect(await api.exited).toBe(0);
    expect(api.output()).toContain('stopped cleanly');
  }, 90_000);

  it('npm start restarts a SIGKILLed worker while the API keeps serving, and gives up after repeated crashes', async () => {
    const port = await freePort();
    // Its worker is killed on purpose: it must not take other suites' jobs, so it gets queues and a
    // database of its own (its recovery sweep would re-enqueue the shared database's open jobs).
    const database = await createIsolatedDatabase('supervised');
    databases.push(database);
    const supervisor = await startServiceProcess(
      'start-all',
      serviceEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        REDIS_KEY_PREFIX: `${testKeyPrefix()}-supervised`,
        SUPERVISOR_MAX_CRASHES: '3',
        SUPERVISOR_CRASH_WINDOW_SECONDS: '300',
        SHUTDOWN_DRAIN_SECONDS: '0',
        API_PROCESSES: '1',
      }),
      'Worker started',
      90_000,
    );
    running.push(supervisor);
    await supervisor.waitForOutput('API listening', 1, 60_000);
    const pids = (name: string) =>
      [...supervisor.output().matchAll(new RegExp(`${name} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));
    const [apiPid] = pids('api');

    // Health is polled throughout the worker's crashes and restarts: the API never stops answering.
    const statuses: (number | string)[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        statuses.push(
          await get(port, '/api/health/').then(
            (res) => res.status,
            (error: Error) => error.message,
          ),
        );
        await sleep(200);
      }
    })();

    for (let crash = 1; crash <= 2; crash++) {
      process.kill(pids('worker').at(-1) as number, 'SIGKILL');
      await supervisor.waitForOutput('worker exited unexpectedly (SIGKILL); restarting', crash);
      await supervisor.waitForOutput('Worker started', crash + 1, 60_000);
    }
    expect(supervisor.output()).toContain('restarting in 1000 ms (crash 1 of 3 allowed within 300 s)');
    expect(supervisor.output()).toContain('restarting in 2000 ms (crash 2 of 3 allowed within 300 s)');
    polling = false;
    await poller;
    expect(statuses.length).toBeGreaterThan(5);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(pids('api')).toEqual([apiPid]);

    process.kill(pids('worker').at(-1) as number, 'SIGKILL');
    expect(await supervisor.exited).toBe(1);
    expect(supervisor.output()).toContain('worker exited unexpectedly (SIGKILL): 3 crashes within 300 s; giving up');
    expect(supervisor.output()).toContain('api stopped');
    expect(await refused(port)).toBe('ECONNREFUSED');
  }, 240_000);

  it('npm start with API_PROCESSES=2 serves from both on one port, and restarts a killed one while the other answers', async () => {
    const port = await freePort();
    const database = await createIsolatedDatabase('cluster');
    databases.push(database);
    const supervisor = await startServiceProcess(
      'start-all',
      serviceEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        REDIS_KEY_PREFIX: `${testKeyPrefix()}-cluster`,
        SHUTDOWN_DRAIN_SECONDS: '0',
        API_PROCESSES: '2',
        METRICS_TOKEN: 'cluster-metrics-token-0123456789',
      }),
      'Worker started',
      120_000,
    );
    running.push(supervisor);
    await supervisor.waitForOutput('API listening', 2, 90_000);
    expect(supervisor.output()).toContain('starting 2 API processes and a worker');
    const pidOf = (name: string) =>
      [...supervisor.output().matchAll(new RegExp(`${name} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));
    const [first] = pidOf('api-1');
    const [second] = pidOf('api-2');

    /** The pids that logged a request for `path` (each request logs one line with its process's pid). */
    const servedBy = (path: string) =>
      new Set(
        supervisor
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{') && line.includes(`"url":"${path}"`))
          .map((line) => (JSON.parse(line) as { pid: number }).pid),
      );
    // Fresh connections go to the API processes in turn.
    for (let i = 0; i < 8; i++) expect((await get(port, '/api/health/?round=1')).status).toBe(200);
    await waitUntil(() => servedBy('/api/health/?round=1').size === 2);
    expect(servedBy('/api/health/?round=1')).toEqual(new Set([first, second]));
    // /metrics sums every API process, whichever one takes the scrape.
    for (let scrape = 0; scrape < 2; scrape++) {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: { Authorization: 'Bearer cluster-metrics-token-0123456789', Connection: 'close' },
      });
      const line = (await res.text())
        .split('\n')
        .find((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes('route="/api/health"'));
      expect(Number(line?.split(' ').at(-1))).toBeGreaterThanOrEqual(8);
    }

    // One API process killed: every request still answers (the other process takes them), and the
    // supervisor starts a new one, which serves too.
    process.kill(first, 'SIGKILL');
    const statuses: number[] = [];
    await supervisor.waitForOutput('api-1 exited unexpectedly (SIGKILL); restarting');
    for (let i = 0; i < 5; i++) statuses.push((await get(port, '/api/health/?round=2')).status);
    await supervisor.waitForOutput('API listening', 3, 90_000);
    const [, replacement] = pidOf('api-1');
    expect(replacement).toBeDefined();
    for (let i = 0; i < 8; i++) statuses.push((await get(port, '/api/health/?round=3')).status);
    expect(new Set(statuses)).toEqual(new Set([200]));
    await waitUntil(() => servedBy('/api/health/?round=3').size === 2);
    expect(servedBy('/api/health/?round=3')).toEqual(new Set([second, replacement]));

    expect(await supervisor.stop()).toBe(0);
    expect(await refused(port)).toBe('ECONNREFUSED');
  }, 300_000);

  it('npm start with START_WORKER=false runs the API processes only and says when each listens, whatever LOG_LEVEL', async () => {
    const port = await freePort();
    // No worker: nothing consumes jobs, so the shared test database and queues are safe to use.
    const supervisor = await startServiceProcess(
      'start-all',
      serviceEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        SHUTDOWN_DRAIN_SECONDS: '0',
        API_PROCESSES: '2',
        START_WORKER: 'false',
        LOG_LEVEL: 'warn',
      }),
      'starting 2 API processes (no worker: START_WORKER=false)',
      120_000,
    );
    running.push(supervisor);
    // Each API process compiles the app with ts-node first: minutes on a loaded machine.
    await supervisor.waitForOutput(' listening on 127.0.0.1:', 2, 180_000);
    expect((await get(port, '/api/health/ready/')).status).toBe(200);
    expect(supervisor.output()).not.toMatch(/worker started/);
    expect(await supervisor.stop()).toBe(0);
    expect(supervisor.output()).toContain('all children stopped; exiting with code 0');
  }, 300_000);
});

/** Polls `check` until it holds (log lines are written asynchronously); throws after 30 s. */
async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await sleep(100);
  if (!check()) throw new Error('condition not met within 30 s');
}
