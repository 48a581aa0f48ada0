import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Anything that runs SQL: a DataSource, an EntityManager, a QueryRunner. */
interface Queryable {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

interface StaleTable {
  name: string;
  changed: string;
  rows: string;
}

/**
 * ANALYZE for every table of the schema whose planner statistics are missing or stale — the rule
 * autovacuum applies (rows changed since the last ANALYZE above 50 + 10 % of the table), applied by
 * the application itself: autovacuum may be off, or far behind after a bulk load, and a planner
 * that believes a million-row table is empty picks plans that scan it once per result row.
 * `tables` limits the check to those tables. Returns the tables analysed.
 */
export async function analyzeStaleTables(db: Queryable, tables?: string[]): Promise<string[]> {
  const stale = await db.query<StaleTable[]>(
    `SELECT t.relname AS name, t.n_mod_since_analyze AS changed, c.reltuples AS rows
       FROM pg_stat_user_tables t JOIN pg_class c ON c.oid = t.relid
      WHERE t.schemaname = current_schema()
        AND ($1::text[] IS NULL OR t.relname = ANY($1::text[]))
        AND (t.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
             OR (t.last_analyze IS NULL AND t.last_autoanalyze IS NULL AND t.n_live_tup > 0))`,
    [tables ?? null],
  );
  for (const table of stale) await db.query(`ANALYZE "${table.name.replace(/"/g, '""')}"`);
  return stale.map((table) => table.name);
}

/**
 * Makes the calling transaction's row counts reach pg_stat_user_tables when it commits, not up to a
 * second or more later (PostgreSQL 15+ flushes a backend's statistics at most once a second), so an
 * analyzeStaleTables run right after it sees the change. A no-op on older servers, which lack the function.
 */
export async function reportStatisticsAtCommit(db: Queryable): Promise<void> {
  await db.query(`DO $$ BEGIN
      IF current_setting('server_version_num')::int >= 150000 THEN EXECUTE 'SELECT pg_stat_force_next_flush()'; END IF;
    END $$`);
}

/**
 * Moves the pending lists of the GIN indexes (on `tables`, else on every table of the schema) into
 * the indexes proper. A GIN index takes new entries into an unsorted pending list (up to
 * gin_pending_list_limit, 4 MB by default) that every search through it reads in full, and only
 * VACUUM (autovacuum) or an insert that fills it empties it: with autovacuum off or lagging, each
 * trigram index of `sample` carried ~480 pending pages after a batch, a rare-term search took 13.8 ms
 * instead of 0.1 ms, and the planner, pricing those pages, walked the whole table instead. Cheap
 * when the lists are empty. Returns the pages moved.
 */
export async function cleanGinPendingLists(db: Queryable, tables?: string[]): Promise<number> {
  const indexes = await db.query<{ oid: number }[]>(
    `SELECT i.indexrelid::int AS oid
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_am am ON am.oid = c.relam
       JOIN pg_class t ON t.oid = i.indrelid
      WHERE am.amname = 'gin' AND t.relnamespace = current_schema()::regnamespace
        AND ($1::text[] IS NULL OR t.relname = ANY($1::text[]))`,
    [tables ?? null],
  );
  let pages = 0;
  for (const index of indexes) {
    const [cleaned] = await db.query<{ pages: string }[]>('SELECT gin_clean_pending_list($1::oid::regclass) AS pages', [
      index.oid,
    ]);
    pages += Number(cleaned.pages);
  }
  return pages;
}

const KEEPER_INTERVAL_MS = 60_000;

/**
 * Worker side: every minute (and at start), ANALYZE whatever tables changed enough since their
 * last statistics and empty the GIN indexes' pending lists — the parts of autovacuum that query
 * plans and text searches depend on, which this application does not leave to luck. A few cheap
 * catalogue reads when nothing changed.
 */
@Injectable()
export class TableStatisticsKeeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TableStatisticsKeeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.running = this.refresh();
    this.timer = setInterval(() => {
      this.running = this.refresh();
    }, KEEPER_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async refresh(): Promise<void> {
    try {
      const started = Date.now();
      const analysed = await analyzeStaleTables(this.dataSource);
      const pages = await cleanGinPendingLists(this.dataSource);
      if (analysed.length || pages) {
        const what = [
          analysed.length ? `analysed ${analysed.join(', ')}` : '',
          pages ? `moved ${pages} GIN pending pages` : '',
        ];
        this.logger.log(`Statistics: ${what.filter(Boolean).join('; ')} in ${Date.now() - started} ms`);
      }
    } catch (error) {
      this.logger.warn(`Statistics refresh failed: ${(error as Error).message}`);
    }
  }
}
