import { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client, Notification } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { DataCiteBudget, budgetPacing } from '../../src/modules/datacite/datacite-budget';
import { SampleDoiRepository } from '../../src/modules/datacite/sample-doi.repository';
import { TestUser, createFreshRegistryCode, createUserWithToken } from '../support/auth';
import { eventually } from '../support/eventually';
import { createMediumContext } from '../support/medium';
import { testConfig, testKeyPrefix } from '../support/test-environment';

/**
 * Issue 27 on the real database and Redis: which outbox rows are interactive and which bulk (the
 * triggers count what a transaction makes due), the shared DataCite budget's pacing and pauses, and
 * the wake-up flag that lets the triggers notify once per claim rather than on every write.
 */
describe('DOI priorities and the DataCite budget', () => {
  let app: INestApplicationContext;
  let db: DataSource;
  let owner: TestUser;
  let code: string;
  // About one request per 2 seconds in all (after a burst of 2), one per 100 seconds for bulk work.
  const config = testConfig({
    REDIS_KEY_PREFIX: `${testKeyPrefix()}-doi-priority-${randomUUID().slice(0, 6)}`,
    PUBLIC_URL: 'https://registry.example.org',
    DATACITE_API_URL: 'http://127.0.0.1:9',
    DATACITE_REPOSITORY_ID: 'MEDIUM.TEST',
    DATACITE_PASSWORD: 'secret',
    DATACITE_REQUESTS_PER_5_MIN: '150',
    DATACITE_BULK_REQUESTS_PER_5_MIN: '3',
  });

  beforeAll(async () => {
    app = await createMediumContext({ config });
    db = app.get(DataSource);
    owner = await createUserWithToken(app);
    code = await createFreshRegistryCode(app.get(AccountsService), { email: owner.email });
  });

  afterAll(async () => {
    await app.close();
  });

  let serial = 0;
  /** Inserts `count` published samples in one statement; their ids. */
  const insert = async (count: number, manager: EntityManager = db.manager): Promise<string[]> => {
    const first = serial;
    serial += count;
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, user_owner_id, latitude, longitude)
       SELECT $1 || lpad((n + $3)::text, 6, '0'), $1, 'priority-' || n, ot.id, 'published', $2, 10, 20
         FROM generate_series(1, $4::int) n, (SELECT id FROM object_type WHERE label = 'Individual sample' LIMIT 1) ot
       RETURNING id`,
      [code, owner.userId, first, count],
    );
    return rows.map((row) => String(row.id));
  };
  const priorities = async (ids: string[]): Promise<number[]> => {
    const rows: { priority: number }[] = await db.query(
      'SELECT DISTINCT priority FROM sample_doi WHERE sample_id = ANY($1::bigint[]) ORDER BY priority',
      [ids],
    );
    return rows.map((row) => row.priority);
  };
  const deliver = (ids: string[]) =>
    db.query(
      `UPDATE sample_doi SET delivered_version = version, state = 'findable', at_datacite = true
        WHERE sample_id = ANY($1::bigint[])`,
      [ids],
    );

  it('makes a small change interactive and what a transaction makes due beyond 100 samples bulk', async () => {
    expect(await priorities(await insert(1))).toEqual([0]);
    expect(await priorities(await insert(100))).toEqual([0]);
    expect(await priorities(await insert(150))).toEqual([1]);
    // A large batch inserts in chunks in one transaction: the chunks after the first 100 are bulk,
    // however short.
    const [first, second] = await db.transaction(async (manager) => [
      await insert(80, manager),
      await insert(30, manager),
    ]);
    expect(await priorities(first)).toEqual([0]);
    expect(await priorities(second)).toEqual([1]);
  });

  it('lets an interactive edit of a waiting bulk row jump the queue, never the other way round', async () => {
    const bulk = await insert(150);
    await db.query("UPDATE sample SET name = name || '-edited' WHERE id = $1", [bulk[0]]);
    expect(await priorities([bulk[0]])).toEqual([0]);
    expect(await priorities(bulk.slice(1))).toEqual([1]);
    // A bulk update of rows already waiting as interactive leaves them interactive.
    const small = await insert(3);
    await db.query("UPDATE sample SET name = name || '-bulk' WHERE id = ANY($1::bigint[])", [[...small, ...bulk]]);
    expect(await priorities(small)).toEqual([0]);
    // Once delivered, the next change is judged afresh.
    await deliver(bulk);
    await db.query("UPDATE sample SET name = name || '-again' WHERE id = ANY($1::bigint[])", [bulk]);
    expect(await priorities(bulk)).toEqual([1]);
  });

  it('re-sends one sample as interactive work, every failed one as bulk work', async () => {
    const ids = await insert(2);
    await deliver(ids);
    await db.query(`UPDATE sample_doi SET state = 'failed' WHERE sample_id = ANY($1::bigint[])`, [ids]);
    const outbox = app.get(SampleDoiRepository);
    await outbox.resendMany(false);
    expect(await priorities(ids)).toEqual([1]);
    await outbox.resend(ids[0]);
    expect(await priorities([ids[0]])).toEqual([0]);
    const backlog = await outbox.backlog();
    expect(backlog.interactive.pending).toBeGreaterThan(0);
    expect(backlog.bulk.pending).toBeGreaterThan(0);
  });

  it('notifies the workers only while they are idle, which their claims record', async () => {
    const listener = new Client({ connectionString: config.database.url });
    const heard: Notification[] = [];
    listener.on('notification', (notification) => heard.push(notification));
    await listener.connect();
    try {
      await listener.query('LISTEN sample_doi');
      /**
       * Runs `step` in a transaction that keeps every claim off the flag (other suites write
       * samples meanwhile; the triggers only read it), then notifies `marker`; what this transaction
       * notified, in order, once the marker arrived (a transaction's notifications arrive together,
       * in order; its pooled connection may have notified before, hence only what arrived since).
       */
      const notified = async (marker: string, step: (manager: EntityManager) => Promise<void>) => {
        const before = heard.length;
        const pid = await db.transaction(async (manager) => {
          await manager.query('LOCK TABLE sample_doi_workers IN EXCLUSIVE MODE');
          await step(manager);
          await manager.query("SELECT pg_notify('sample_doi', $1)", [marker]);
          const [{ pid }] = await manager.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
          return pid;
        });
        await eventually(() => expect(heard.map((notification) => notification.payload)).toContain(marker));
        return heard
          .slice(before)
          .filter((notification) => notification.processId === pid)
          .map((notification) => notification.payload);
      };
      const idle = async (manager: EntityManager) =>
        (await manager.query<{ idle: boolean }[]>('SELECT idle FROM sample_doi_workers'))[0].idle;
      /** The claim statement, run in the test's transaction. */
      const claims = (manager: EntityManager) =>
        new SampleDoiRepository({ query: manager.query.bind(manager) } as unknown as DataSource);

      // Busy (a drain's next round will claim them): changes wake nobody.
      expect(
        await notified('busy', async (manager) => {
          await manager.query('UPDATE sample_doi_workers SET idle = false');
          await insert(2, manager);
        }),
      ).toEqual(['busy']);
      // A claim that finds nothing records the workers idle: the next change notifies.
      expect(
        await notified('idle', async (manager) => {
          expect(await claims(manager).claimDue('interactive', 0, 60_000)).toEqual([]);
          expect(await idle(manager)).toBe(true);
          await insert(1, manager);
        }),
      ).toEqual(['', 'idle']);
      // A claim that takes rows records them busy.
      await db.transaction(async (manager) => {
        await manager.query('LOCK TABLE sample_doi_workers IN EXCLUSIVE MODE');
        await insert(1, manager);
        await manager.query('UPDATE sample_doi_workers SET idle = true');
        expect(await claims(manager).claimDue('interactive', 1, 60_000)).toHaveLength(1);
        expect(await idle(manager)).toBe(false);
      });
    } finally {
      await listener.end();
    }
  });

  it('paces requests across callers, bulk at its own slower pace, and holds everyone during a pause', async () => {
    const budget = app.get(DataCiteBudget);
    /** Takes a request, waiting as the budget says (no fixed sleeps). */
    const takeWhenAllowed = async (priority: 'interactive' | 'bulk') => {
      for (let wait = await budget.take(priority); wait > 0; wait = await budget.take(priority)) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    };
    const { intervalUs, burst } = budgetPacing(150);
    for (let i = 0; i <= burst; i++) expect(await budget.take('interactive')).toBe(0);
    // After the burst, the next request may go one interval later, not before.
    const wait = await budget.take('interactive');
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(intervalUs / 1000);
    await takeWhenAllowed('bulk');
    // Bulk work waits for its own interval (100 s); interactive work only for the shared one.
    expect(await budget.take('bulk')).toBeGreaterThan(50_000);
    await takeWhenAllowed('interactive');

    await budget.pause(60_000);
    expect(await budget.pausedForMs()).toBeGreaterThan(50_000);
    expect(await budget.take('interactive')).toBeGreaterThan(50_000);
    const use = await budget.use();
    expect(use).toMatchObject({ requests_per_5_min: 150, bulk_requests_per_5_min: 3 });
    expect(use.used_last_5_min).toBe(burst + 3);
    expect(use.bulk_used_last_5_min).toBe(1);
    expect(use.paused_until).not.toBeNull();
  });
});
