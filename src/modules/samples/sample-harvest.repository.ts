import { Injectable } from '@nestjs/common';
import type { QueryResultRow } from 'pg';
import { pooledQuery } from '../../core/database/prepared-query';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { SqlCondition } from './sample-access.policy';

/**
 * A record's last change as a harvester sees it: its last update, or the moment it became public
 * when that came later (an embargo that ended changes no row, yet the record appears then).
 * Indexed by idx_sample_harvest (migration SampleHarvestIndex), in this exact form.
 */
export const HARVEST_DATESTAMP = 'GREATEST(s.updated_at, s.publish_date)';

/** One record header of a harvest. */
export interface HarvestHeader {
  id: string;
  igsn: string;
  registryCode: string;
  /** The datestamp as PostgreSQL prints it (a JS Date would lose the microseconds a keyset needs). */
  datestampKey: string;
  datestamp: Date;
  deleted: boolean;
}

/** Where the next page of a harvest starts: after this (datestamp, id). */
export interface HarvestCursor {
  datestampKey: string;
  id: string;
}

export interface HarvestFilter {
  /** A registry code (OAI set). */
  set?: string;
  /** Datestamps at or after this instant. */
  from?: Date;
  /** Datestamps before this instant (the caller turns OAI's inclusive `until` into an exclusive bound). */
  before?: Date;
}

interface HeaderRow {
  id: string;
  igsn: string;
  registry_code: string;
  datestamp_key: string;
  datestamp: Date;
  is_deactivated: boolean;
}

const toHeader = (row: HeaderRow): HarvestHeader => ({
  id: String(row.id),
  igsn: row.igsn,
  registryCode: row.registry_code,
  datestampKey: row.datestamp_key,
  datestamp: row.datestamp,
  deleted: row.is_deactivated,
});

const HEADER_COLUMNS = `s.id, s.igsn, s.registry_code, s.is_deactivated,
  ${HARVEST_DATESTAMP} AS datestamp, ${HARVEST_DATESTAMP}::text AS datestamp_key`;

/**
 * The statements of OAI-PMH harvesting on `sample`. `harvestable` is the access policy's
 * harvestableCondition on alias `s` (its parameters come first). Pages are keyset pages in
 * (datestamp, id) order, so a sample added or changed while a harvest runs moves to the end of the
 * list instead of shifting the pages not yet read.
 */
@Injectable()
export class SampleHarvestRepository {
  constructor(private readonly routing: ReadRouting) {}

  /** Harvesters' reads are public: a standby may answer them (ReadRouting decides). */
  private pooled<T extends QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
    return this.routing.read((source) => pooledQuery<T>(source, text, values));
  }

  async page(
    harvestable: SqlCondition,
    filter: HarvestFilter,
    after: HarvestCursor | undefined,
    limit: number,
  ): Promise<HarvestHeader[]> {
    const params = [...harvestable.params];
    const value = (v: unknown) => `$${params.push(v)}`;
    const clauses = [harvestable.sql];
    if (filter.set !== undefined) clauses.push(`s.registry_code = ${value(filter.set)}`);
    if (filter.from) clauses.push(`${HARVEST_DATESTAMP} >= ${value(filter.from)}::timestamptz`);
    if (filter.before) clauses.push(`${HARVEST_DATESTAMP} < ${value(filter.before)}::timestamptz`);
    if (after) {
      clauses.push(
        `(${HARVEST_DATESTAMP}, s.id) > (${value(after.datestampKey)}::timestamptz, ${value(after.id)}::bigint)`,
      );
    }
    const rows = await this.pooled<HeaderRow>(
      `SELECT ${HEADER_COLUMNS} FROM sample s WHERE ${clauses.join(' AND ')}
        ORDER BY ${HARVEST_DATESTAMP}, s.id LIMIT ${value(limit)}`,
      params,
    );
    return rows.map(toHeader);
  }

  /** The record of this IGSN (bare suffix) when a harvester may know of it. */
  async byIgsn(harvestable: SqlCondition, suffix: string): Promise<HarvestHeader | undefined> {
    const n = harvestable.params.length;
    const [row] = await this.pooled<HeaderRow>(
      `SELECT ${HEADER_COLUMNS} FROM sample s WHERE s.igsn = $${n + 1} AND ${harvestable.sql}`,
      [...harvestable.params, suffix],
    );
    return row && toHeader(row);
  }

  /** The earliest datestamp of any record, or null when there is none. */
  async earliestDatestamp(harvestable: SqlCondition): Promise<Date | null> {
    const [row] = await this.pooled<{ datestamp: Date | null }>(
      `SELECT ${HARVEST_DATESTAMP} AS datestamp FROM sample s WHERE ${harvestable.sql}
        ORDER BY ${HARVEST_DATESTAMP}, s.id LIMIT 1`,
      harvestable.params,
    );
    return row?.datestamp ?? null;
  }
}
