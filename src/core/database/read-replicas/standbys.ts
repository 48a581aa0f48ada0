import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { withTimeout } from '../../async/with-timeout';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { buildReadDataSourceOptions } from '../data-source-options';
import { parseLsn } from './lsn';
import { PrimaryPositions } from './primary-positions';
import { StandbyView } from './read-routing.policy';

/** How often each process checks its standbys: also how stale a cached replay position may be. */
export const STANDBY_CHECK_INTERVAL_MS = 1000;
const CHECK_TIMEOUT_MS = 2000;
/** A replay position fetched on demand is reused for this long by every read that asks. */
const REPLAY_REFRESH_MS = 50;

export interface StandbyStatus extends StandbyView {
  /** `host:port` of the standby: a label for metrics, logs and readiness (never credentials). */
  name: string;
  up: boolean;
  /** Seconds the standby has been behind a primary position it has not replayed; null while down. */
  lagSeconds: number | null;
  replayPaused: boolean;
  /** Why it is not usable, when it is not. */
  problem?: string;
}

/** One standby: its read DataSource (created once it first answers) and a connection for checks. */
class Standby {
  readonly name: string;
  dataSource?: DataSource;
  checkClient?: Client;
  up = false;
  replayLsn?: bigint;
  replayPaused = false;
  lagSeconds: number | null = null;
  problem?: string = 'not checked yet';

  constructor(readonly url: string) {
    const parsed = new URL(url);
    this.name = `${parsed.hostname}:${parsed.port || '5432'}`;
  }
}

/**
 * The streaming standbys of DATABASE_READ_URLS: one read DataSource each, checked every second for
 * being up, in recovery, and how far behind the primary they are. Lag is measured on the
 * application's own clock, not the servers': each check notes the primary's WAL position and when
 * it was seen, and a standby's lag is how long ago the oldest position it has not replayed yet was
 * seen (0 when it has replayed everything seen). A standby that is down, not a standby, or lagging
 * more than READ_REPLICA_MAX_LAG_SECONDS is not usable until a check finds it well again.
 */
@Injectable()
export class Standbys implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(Standbys.name);
  private readonly members: Standby[];
  private readonly primaryPositions = new PrimaryPositions();
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  private stopped = false;
  private refreshing?: Promise<void>;
  private refreshedAt = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly primary: DataSource,
  ) {
    this.members = config.database.readUrls.map((url) => new Standby(url));
  }

  get configured(): boolean {
    return this.members.length > 0;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.configured) return;
    // Start with a known state; a standby that is down does not hold start-up up.
    await this.check();
    this.timer = setInterval(() => {
      if (!this.checking) this.checking = this.check().finally(() => (this.checking = undefined));
    }, STANDBY_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(
      this.members.map(async (member) => {
        await member.checkClient?.end().catch(() => undefined);
        if (member.dataSource?.isInitialized) await member.dataSource.destroy().catch(() => undefined);
      }),
    );
  }

  /** Every standby as the routing and readiness see it now. */
  statuses(): StandbyStatus[] {
    const maxLag = this.config.database.readReplicaMaxLagSeconds;
    return this.members.map((member) => ({
      name: member.name,
      up: member.up,
      usable: member.up && member.dataSource !== undefined && (member.lagSeconds ?? Infinity) <= maxLag,
      replayLsn: member.replayLsn,
      lagSeconds: member.lagSeconds,
      replayPaused: member.replayPaused,
      problem:
        member.problem ??
        ((member.lagSeconds ?? 0) > maxLag ? `lagging ${member.lagSeconds} s (more than ${maxLag} s)` : undefined),
    }));
  }

  /** The read DataSource of a standby by name (undefined when it never answered). */
  dataSource(name: string): DataSource | undefined {
    return this.members.find((member) => member.name === name)?.dataSource;
  }

  /** A read on the standby failed for a connection reason: no more reads until a check finds it up. */
  markDown(name: string, problem: string): void {
    const member = this.members.find((candidate) => candidate.name === name);
    if (!member || !member.up) return;
    member.up = false;
    member.problem = problem;
    this.logger.warn(`Standby ${name} taken out of reads: ${problem}`);
  }

  /**
   * Fetches the replay position of every usable standby now, for a caller whose last write is past
   * the cached one: without it a writer would read the primary for up to a check interval after
   * the standby replayed their write. Concurrent callers share one fetch, reused for 50 ms.
   */
  async refreshReplay(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (Date.now() - this.refreshedAt < REPLAY_REFRESH_MS) return;
    this.refreshing = Promise.all(
      this.members
        .filter((member) => member.up && member.checkClient)
        .map(async (member) => {
          try {
            const { rows } = await (member.checkClient as Client).query<{ replay: string | null }>(
              'SELECT pg_last_wal_replay_lsn()::text AS replay',
            );
            if (rows[0].replay !== null) member.replayLsn = parseLsn(rows[0].replay);
          } catch {
            // The periodic check finds out what is wrong; until then the cached position stands.
          }
        }),
    ).then(() => {
      this.refreshedAt = Date.now();
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Checks every standby once (also called by tests that need a fresh state at once). */
  async check(): Promise<void> {
    const now = Date.now();
    try {
      const [row] = await withTimeout(
        this.primary.query<{ lsn: string }[]>('SELECT pg_current_wal_lsn()::text AS lsn'),
        CHECK_TIMEOUT_MS,
        'the primary',
      );
      this.primaryPositions.note(parseLsn(row.lsn), now);
    } catch (error) {
      // Without the primary's position the lag is unknown: keep the last samples (the primary
      // being down is the readiness check's concern, not this one's).
      this.logger.warn(`Primary WAL position unavailable: ${(error as Error).message}`);
    }
    await Promise.all(this.members.map((member) => this.checkOne(member, now)));
    this.forgetReplayedSamples();
  }

  private async checkOne(member: Standby, now: number): Promise<void> {
    if (this.stopped) return;
    try {
      const client = await this.checkClientOf(member);
      const { rows } = await client.query<{ recovery: boolean; replay: string | null; paused: boolean }>(
        `SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replay,
                pg_is_in_recovery() AND pg_is_wal_replay_paused() AS paused`,
      );
      const [state] = rows;
      if (!state.recovery || state.replay === null) {
        // A promoted standby (now a primary of its own) or a plain server: not a copy of ours.
        throw new Error('not a streaming standby (pg_is_in_recovery() is false)');
      }
      member.replayLsn = parseLsn(state.replay);
      member.replayPaused = state.paused;
      member.lagSeconds = this.primaryPositions.lagOf(member.replayLsn, now);
      if (!member.dataSource) member.dataSource = await this.openDataSource(member);
      if (!member.up) this.logger.log(`Standby ${member.name} is up (lag ${member.lagSeconds} s)`);
      member.up = true;
      member.problem = undefined;
    } catch (error) {
      const problem = (error as Error).message;
      if (member.up || member.problem !== problem) this.logger.warn(`Standby ${member.name} unusable: ${problem}`);
      member.up = false;
      member.problem = problem;
      member.lagSeconds = null;
      await member.checkClient?.end().catch(() => undefined);
      member.checkClient = undefined;
    }
  }

  private async checkClientOf(member: Standby): Promise<Client> {
    if (member.checkClient) return member.checkClient;
    const client = new Client({
      connectionString: member.url,
      application_name: `sample-registry-standby-check-${process.pid}`,
      connectionTimeoutMillis: CHECK_TIMEOUT_MS,
      query_timeout: CHECK_TIMEOUT_MS,
    });
    // A connection the standby ends (shutdown) errors outside any query: the next check reconnects.
    client.on('error', () => {
      if (member.checkClient === client) member.checkClient = undefined;
    });
    await client.connect();
    member.checkClient = client;
    return client;
  }

  private async openDataSource(member: Standby): Promise<DataSource> {
    const dataSource = new DataSource(buildReadDataSourceOptions(this.config, member.url));
    await withTimeout(dataSource.initialize(), CHECK_TIMEOUT_MS * 5, `standby ${member.name}`);
    return dataSource;
  }

  /** Drops primary positions every up standby has replayed (keeping the newest). */
  private forgetReplayedSamples(): void {
    const replayed = this.members
      .filter((member) => member.up && member.replayLsn !== undefined)
      .map((member) => member.replayLsn as bigint);
    if (replayed.length < this.members.length) return;
    this.primaryPositions.forgetUpTo(replayed.reduce((a, b) => (a < b ? a : b)));
  }
}
