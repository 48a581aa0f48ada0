import { Injectable } from '@nestjs/common';
import type { QueryResultRow } from 'pg';
import { pooledQuery } from '../../core/database/prepared-query';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { Sql, and, empty, raw, sql } from '../../core/database/sql';

/**
 * A record's last change as a harvester sees it: its last update, or the moment it became public
 * when that came later (an embargo that ended changes no row, yet the record appears then).
 * Indexed by idx_sample_harvest (migration SampleHarvestIndex), in this exact form.
 */
export const HARVEST_DATESTAMP = 'GREATEST(s.updated_at, s.publish_date)';
const DATESTAMP = raw(HARVEST_DATESTAMP);

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

const HEADER_COLUMNS = raw(`s.id, s.igsn, s.registry_code, s.is_deactivated,
  ${HARVEST_DATESTAMP} AS datestamp, ${HARVEST_DATESTAMP}::text AS datestamp_key`);

/**
 * The statements of OAI-PMH harvesting on `sample`. `harvestable` is the access policy's
 * harvestableCondition on alias `s`. Pages are keyset pages in
 * (datestamp, id) order, so a sample added or changed while a harvest runs moves to the end of the
 * list instead of shifting the pages not yet read.
 */
@Injectable()
export class SampleHarvestRepository {
  constructor(private readonly routing: ReadRouting) {}

  /** Harvesters' reads are public: a standby may answer them (ReadRouting decides). */
  private pooled<T extends QueryResultRow>(statement: Sql): Promise<T[]> {
    const { text, values } = statement.toQuery();
    return this.routing.read((source) => pooledQuery<T>(source, text, values));
  }

  async page(
    harvestable: Sql,
    filter: HarvestFilter,
    after: HarvestCursor | undefined,
    limit: number,
  ): Promise<HarvestHeader[]> {
    const where = and(
      harvestable,
      filter.set !== undefined ? sql`s.registry_code = ${filter.set}` : empty,
      filter.from ? sql`${DATESTAMP} >= ${filter.from}::timestamptz` : empty,
      filter.before ? sql`${DATESTAMP} < ${filter.before}::timestamptz` : empty,
      after ? sql`(${DATESTAMP}, s.id) > (${after.datestampKey}::timestamptz, ${after.id}::bigint)` : empty,
    );
    const rows = await this.pooled<HeaderRow>(
      sql`SELECT ${HEADER_COLUMNS} FROM sample s WHERE ${where}
        ORDER BY ${DATESTAMP}, s.id LIMIT ${limit}`,
    );
    return rows.map(toHeader);
  }

  /** The record of this IGSN (bare suffix) when a harvester may know of it. */
  async byIgsn(harvestable: Sql, suffix: string): Promise<HarvestHeader | undefined> {
    const [row] = await this.pooled<HeaderRow>(
      sql`SELECT ${HEADER_COLUMNS} FROM sample s WHERE s.igsn = ${suffix} AND ${harvestable}`,
    );
    return row && toHeader(row);
  }

  /** The earliest datestamp of any record, or null when there is none. */
  async earliestDatestamp(harvestable: Sql): Promise<Date | null> {
    const [row] = await this.pooled<{ datestamp: Date | null }>(
      sql`SELECT ${DATESTAMP} AS datestamp FROM sample s WHERE ${harvestable}
        ORDER BY ${DATESTAMP}, s.id LIMIT 1`,
    );
    return row?.datestamp ?? null;
  }
}
