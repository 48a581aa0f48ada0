import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DoiPriority, priorityValue } from './doi-priority';

export interface ClaimedDoi {
  sampleId: string;
  version: string;
  atDataCite: boolean;
  attempts: number;
}

export interface DoiSummary {
  pending: number;
  pending_interactive: number;
  pending_bulk: number;
  retrying: number;
  findable: number;
  registered: number;
  failed: number;
  oldest_pending_since: string | null;
}

/**
 * Every statement on `sample_doi`, the DataCite outbox and state table (see the migration
 * SampleDoiRegistration). Outcomes are recorded for the version that was sent: a change that
 * arrived meanwhile leaves the row due again, so the latest state is what DataCite ends up with.
 */
@Injectable()
export class SampleDoiRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Takes up to `limit` due rows of one priority for `leaseMs`: another worker skips them until
   * the lease ends (a worker that dies mid-request leaves its rows to be taken again then). One
   * priority at a time is a range scan of idx_sample_doi_due_by_priority, however many rows of
   * the other one wait. The same statement records whether the workers are idle (it claimed
   * nothing): the triggers then wake them on the next change (SampleDoiWakeIdleWorkers).
   */
  async claimDue(priority: DoiPriority, limit: number, leaseMs: number): Promise<ClaimedDoi[]> {
    const rows: { sample_id: string; version: string; at_datacite: boolean; attempts: number }[] =
      await this.dataSource.query(
        `WITH claimed AS (
           UPDATE sample_doi d SET claimed_until = now() + $2 * interval '1 millisecond'
            WHERE d.sample_id IN (
              SELECT sample_id FROM sample_doi
               WHERE version > delivered_version AND priority = $3 AND next_attempt_at <= now()
                 AND (claimed_until IS NULL OR claimed_until < now())
               ORDER BY next_attempt_at, sample_id
               LIMIT $1
               FOR UPDATE SKIP LOCKED)
           RETURNING d.sample_id, d.version, d.at_datacite, d.attempts
         ), workers AS (
           UPDATE sample_doi_workers w SET idle = now_idle.idle
             FROM (SELECT NOT EXISTS (SELECT 1 FROM claimed) AS idle) now_idle
            WHERE w.idle <> now_idle.idle
         )
         SELECT * FROM claimed`,
        [limit, leaseMs, priorityValue(priority)],
      );
    return rows
      .map((row) => ({
        sampleId: String(row.sample_id),
        version: String(row.version),
        atDataCite: row.at_datacite,
        attempts: row.attempts,
      }))
      .sort((a, b) => Number(a.sampleId) - Number(b.sampleId));
  }

  /** DataCite holds `state` for this version (or, `sent` false, there was nothing to send yet). */
  async recordDelivered(claim: ClaimedDoi, state: 'findable' | 'registered' | 'pending', sent: boolean) {
    await this.dataSource.query(
      `UPDATE sample_doi
          SET delivered_version = $2, state = $3::varchar, at_datacite = at_datacite OR $4, error = NULL, attempts = 0,
              claimed_until = NULL, updated_at = CASE WHEN state = $3::varchar THEN updated_at ELSE now() END
        WHERE sample_id = $1`,
      [claim.sampleId, claim.version, state, sent],
    );
  }

  /** DataCite refused this version: failed, until the sample changes or staff re-send it. */
  async recordRejected(claim: ClaimedDoi, message: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE sample_doi
          SET delivered_version = $2, state = 'failed', error = $3, attempts = attempts + 1,
              claimed_until = NULL, updated_at = now()
        WHERE sample_id = $1`,
      [claim.sampleId, claim.version, message],
    );
  }

  /** Not sent after all (DataCite asked every worker to wait): due again at once, no attempt counted. */
  async release(claims: ClaimedDoi[]): Promise<void> {
    if (!claims.length) return;
    await this.dataSource.query('UPDATE sample_doi SET claimed_until = NULL WHERE sample_id = ANY($1::bigint[])', [
      claims.map((claim) => claim.sampleId),
    ]);
  }

  /** Not delivered this time: due again after `delayMs`, with the problem visible meanwhile. */
  async recordRetry(claim: ClaimedDoi, message: string, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE sample_doi
          SET error = $2, attempts = attempts + 1, claimed_until = NULL,
              next_attempt_at = now() + $3 * interval '1 millisecond'
        WHERE sample_id = $1`,
      [claim.sampleId, message, delayMs],
    );
  }

  /**
   * Embargoes that have ended make their samples due (they may now be published at DataCite), and
   * their parents, whose records list public children (sample_doi_release_ended_embargoes).
   */
  async releaseEndedEmbargoes(): Promise<number> {
    const [row]: { released: number }[] = await this.dataSource.query(
      'SELECT sample_doi_release_ended_embargoes() AS released',
    );
    return row.released;
  }

  /** Makes one sample due now, whatever its state, as interactive work; false when it has no row. */
  async resend(sampleId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO sample_doi AS d (sample_id, priority) VALUES ($1, 0)
       ON CONFLICT (sample_id) DO UPDATE
         SET version = d.version + 1, next_attempt_at = now(), attempts = 0, claimed_until = NULL, updated_at = now(),
             priority = 0
       RETURNING sample_id`,
      [sampleId],
    );
    return rows.length > 0;
  }

  /**
   * Makes every failed sample (or, `all`, every sample) due again, as bulk work (a row already
   * pending keeps its priority); how many.
   */
  async resendMany(all: boolean): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `UPDATE sample_doi
          SET version = version + 1, next_attempt_at = now(), attempts = 0, claimed_until = NULL, updated_at = now(),
              at_datacite = at_datacite AND NOT $1,
              priority = CASE WHEN version > delivered_version THEN priority ELSE 1 END
        WHERE $1 OR (state = 'failed' AND version = delivered_version)`,
      [all],
    );
    return count;
  }

  async status(sampleId: string): Promise<{ state: string; updatedAt: Date; error: string | null } | undefined> {
    const [row]: { state: string; updated_at: Date; error: string | null }[] = await this.dataSource.query(
      `SELECT CASE WHEN version > delivered_version THEN 'pending' ELSE state END AS state, updated_at, error
         FROM sample_doi WHERE sample_id = $1`,
      [sampleId],
    );
    return row && { state: row.state, updatedAt: row.updated_at, error: row.error };
  }

  /** Pending rows and the age of the oldest change among them, per priority (metrics, status). */
  async backlog(): Promise<Record<DoiPriority, { pending: number; oldestAgeSeconds: number }>> {
    const rows: { priority: number; pending: string; oldest: number | null }[] = await this.dataSource.query(
      `SELECT priority, count(*) AS pending, extract(epoch FROM now() - min(updated_at))::float8 AS oldest
         FROM sample_doi WHERE version > delivered_version GROUP BY priority`,
    );
    const backlog = {
      interactive: { pending: 0, oldestAgeSeconds: 0 },
      bulk: { pending: 0, oldestAgeSeconds: 0 },
    };
    for (const row of rows) {
      const entry = row.priority === 0 ? backlog.interactive : backlog.bulk;
      entry.pending = Number(row.pending);
      entry.oldestAgeSeconds = Math.max(0, Math.round(row.oldest ?? 0));
    }
    return backlog;
  }

  /** Counts by state, for progress: one pass over the table (staff and the CLI only). */
  async summary(): Promise<DoiSummary> {
    const [row]: Record<string, string | Date | null>[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE version > delivered_version) AS pending,
              count(*) FILTER (WHERE version > delivered_version AND priority = 0) AS pending_interactive,
              count(*) FILTER (WHERE version > delivered_version AND priority = 1) AS pending_bulk,
              count(*) FILTER (WHERE version > delivered_version AND attempts > 0) AS retrying,
              count(*) FILTER (WHERE version = delivered_version AND state = 'findable') AS findable,
              count(*) FILTER (WHERE version = delivered_version AND state = 'registered') AS registered,
              count(*) FILTER (WHERE version = delivered_version AND state = 'failed') AS failed,
              min(updated_at) FILTER (WHERE version > delivered_version) AS oldest_pending_since
         FROM sample_doi`,
    );
    const oldest = row.oldest_pending_since as Date | null;
    return {
      pending: Number(row.pending),
      pending_interactive: Number(row.pending_interactive),
      pending_bulk: Number(row.pending_bulk),
      retrying: Number(row.retrying),
      findable: Number(row.findable),
      registered: Number(row.registered),
      failed: Number(row.failed),
      oldest_pending_since: oldest ? oldest.toISOString() : null,
    };
  }
}
