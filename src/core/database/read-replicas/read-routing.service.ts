import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Counter, Gauge } from 'prom-client';
import { DataSource, QueryFailedError } from 'typeorm';
import { Metrics } from '../../metrics/metrics';
import { CallerPositions } from './caller-positions';
import {
  CallerPosition,
  ReadContext,
  ReadDecision,
  chooseReadTarget,
  needsCallerPosition,
} from './read-routing.policy';
import { Standbys } from './standbys';

/** SQLSTATE classes of a standby that went away or cannot serve (connection, shutdown, recovery conflict). */
const STANDBY_TROUBLE = /^(08|57|40001|53)/;

/** A failure of the standby itself — not of the work's own logic (a rejected job, a cancelled export). */
function isStandbyTrouble(error: unknown): boolean {
  if (error instanceof QueryFailedError) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (STANDBY_TROUBLE.test(code) || code.startsWith('E'))) return true;
  return typeof message === 'string' && /connection|terminat|timeout|ECONNREFUSED/i.test(message);
}

function isConnectionTrouble(error: unknown): boolean {
  const driver = error instanceof QueryFailedError ? (error.driverError as { code?: unknown }) : error;
  const code = (driver as { code?: unknown }).code;
  if (typeof code === 'string') return /^(08|57P)/.test(code) || code.startsWith('E');
  return /connection|terminat|timeout/i.test(String((error as { message?: unknown }).message));
}

/**
 * The one place that decides where a read runs (the rules: read-routing.policy.ts,
 * docs/operations/replicas.md). Repositories hand it the reads that may run on a standby; what
 * they do not hand it runs on the primary, as does every read of work that writes.
 *
 * HTTP requests run inside a context (ReadRoutingInterceptor); a worker's job runs in one only
 * when its code says so (`run`), so a worker reading to decide a write reads the primary.
 */
@Injectable()
export class ReadRouting {
  private readonly logger = new Logger(ReadRouting.name);
  private readonly context = new AsyncLocalStorage<ReadContext>();
  private turn = 0;
  private readonly callerPositions = new WeakMap<ReadContext, Promise<CallerPosition>>();
  private readonly reads: Counter<'target' | 'reason'>;
  private readonly fallbacks: Counter<'standby' | 'reason'>;

  constructor(
    @InjectDataSource() private readonly primary: DataSource,
    private readonly standbys: Standbys,
    private readonly positions: CallerPositions,
    metrics: Metrics,
  ) {
    const registers = [metrics.registry];
    this.reads = new Counter({
      name: 'db_reads_total',
      help: 'Routed reads by target (primary, or the standby host:port) and why the primary, when it was',
      labelNames: ['target', 'reason'],
      registers,
    });
    this.fallbacks = new Counter({
      name: 'db_read_fallbacks_total',
      help: 'Reads sent to the primary because a standby was unusable (down or lagging) or failed mid-read',
      labelNames: ['standby', 'reason'],
      registers,
    });
    const statuses = () => standbys.statuses();
    new Gauge({
      name: 'db_standby_up',
      help: 'Whether each standby answered its last check as a streaming standby (1) or not (0)',
      labelNames: ['standby'],
      registers,
      collect() {
        this.reset();
        for (const status of statuses()) this.set({ standby: status.name }, status.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_standby_lag_seconds',
      help: 'How long each standby has been behind a primary WAL position it has not replayed (absent while down)',
      labelNames: ['standby'],
      registers,
      collect() {
        this.reset();
        for (const status of statuses()) {
          if (status.lagSeconds !== null) this.set({ standby: status.name }, status.lagSeconds);
        }
      },
    });
  }

  /** Whether any standby is configured (DATABASE_READ_URLS); without, every read is the primary's. */
  get enabled(): boolean {
    return this.standbys.configured;
  }

  /** Runs `work` as one unit of reads (a request, an export job): its routed reads follow `context`. */
  run<T>(context: ReadContext, work: () => T): T {
    return this.context.run(context, work);
  }

  /**
   * Runs a read that may be served by a standby: on the DataSource the rules choose. A standby
   * that fails it (down, shutting down, a replay conflict) is retried on the primary at once — a
   * request never fails because a standby did — and, for a connection failure, taken out of reads.
   */
  async read<T>(work: (source: DataSource) => Promise<T>): Promise<T> {
    const decision = await this.decide();
    const source = decision.target === 'standby' ? this.standbys.dataSource(decision.standby) : undefined;
    if (decision.target === 'primary' || !source) {
      // A chosen standby without a DataSource has not answered yet: unavailable too.
      const reason = decision.target === 'primary' ? decision.reason : 'standby-unavailable';
      this.reads.inc({ target: 'primary', reason });
      if (reason === 'standby-unavailable') this.fallbacks.inc({ standby: 'any', reason: 'unavailable' });
      return work(this.primary);
    }
    this.reads.inc({ target: decision.standby, reason: 'routed' });
    try {
      return await work(source);
    } catch (error) {
      if (!isStandbyTrouble(error)) throw error;
      const message = (error as Error).message;
      if (isConnectionTrouble(error)) this.standbys.markDown(decision.standby, message);
      this.fallbacks.inc({ standby: decision.standby, reason: 'failed' });
      this.logger.warn(`Read on standby ${decision.standby} failed (${message}); reading the primary`);
      this.reads.inc({ target: 'primary', reason: 'standby-failed' });
      return work(this.primary);
    }
  }

  /** Where a read would go now (for tests and diagnostics). */
  async decide(): Promise<ReadDecision> {
    const context = this.context.getStore();
    const standbys = this.standbys.statuses();
    let position: CallerPosition = { kind: 'none' };
    if (context?.caller !== undefined && needsCallerPosition(context, standbys)) {
      // Once per request or job: a search runs several reads, each would ask Redis again.
      let known = this.callerPositions.get(context);
      if (!known) this.callerPositions.set(context, (known = this.positions.positionOf(context.caller)));
      position = await known;
    }
    const decision = chooseReadTarget(context, standbys, position, this.turn++);
    if (decision.target === 'primary' && decision.reason === 'read-your-writes' && position.kind === 'at') {
      // The cached replay positions may be up to a check old: look again before giving up on the standbys.
      await this.standbys.refreshReplay();
      return chooseReadTarget(context, this.standbys.statuses(), position, this.turn++);
    }
    return decision;
  }

  /**
   * After `caller`'s write committed: remembers the primary's WAL position, so their reads go to a
   * standby only once it has replayed it. Never fails the write that already happened; without
   * Redis their reads cannot be routed by position and stay on the primary (CallerPositions).
   */
  async rememberWrite(caller: string): Promise<void> {
    if (!this.enabled) return;
    try {
      const [row] = await this.primary.query<{ lsn: string }[]>('SELECT pg_current_wal_lsn()::text AS lsn');
      await this.positions.remember(caller, row.lsn);
    } catch (error) {
      this.logger.warn(`Could not remember the write position of ${caller}: ${(error as Error).message}`);
    }
  }
}

/** The caller key of a user, as contexts and remembered positions name them. */
export function userCaller(userId: number): string {
  return `user:${userId}`;
}
