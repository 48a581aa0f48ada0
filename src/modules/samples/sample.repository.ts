import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { pooledQuery } from '../../core/database/prepared-query';
import { Sql, raw, sql } from '../../core/database/sql';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { PLAIN_SAMPLE_FIELDS } from './sample-fields';
import { SAMPLE_VOCABULARY_JOINS } from './sample-flat-columns';
import { SampleRow } from './sample.mapper';

/**
 * Everything a sample's JSON needs, for rows picked by `WHERE …` on alias `s`: the catalogue's plain
 * fields (sample-fields.ts), then the columns of the fields with joins or shapes of their own. The
 * rows are always picked first (by id or IGSN, on a unique index); every other table is reached from them by its
 * primary key — small vocabulary tables by join, the parent sample by a scalar subquery — so no
 * plan can turn into a scan of `sample` per result row, whatever the statistics say.
 */
export const SAMPLE_DETAIL = `
  SELECT s.id, s.igsn, ${PLAIN_SAMPLE_FIELDS.map((field) => `s.${field.key}`).join(', ')},
         ot.label AS object_type, ot.hierarchical_label AS object_type_path,
         (SELECT ps.igsn FROM sample ps WHERE ps.id = s.parent_sample_id) AS parent_igsn,
         col.collectors,
         p.id AS platform_id, p.label AS platform_label, pt.label AS platform_type, p.description AS platform_description,
         lp.id AS launch_platform_id, lp.label AS launch_platform_label, lt.label AS launch_type,
         ca.id AS current_archive_id, ca.label AS current_archive_label,
         oa.id AS original_archive_id, oa.label AS original_archive_label,
         s.related_resources, lrr.linked_resources, s.metadata_store_status, s.publish_date,
         s.deactivated_at, s.deactivate_duplicate_igsns,
         s.user_owner_id, s.team_owner_id, s.created_at, s.updated_at,
         CASE WHEN sd.version > sd.delivered_version THEN 'pending' ELSE sd.state END AS doi_state,
         sd.updated_at AS doi_updated_at, sd.error AS doi_error
    FROM sample s ${SAMPLE_VOCABULARY_JOINS}
    LEFT JOIN sample_doi sd ON sd.sample_id = s.id
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object(
               'id', c.id,
               'individual', CASE WHEN i.id IS NULL THEN NULL ELSE json_build_object(
                  'id', i.id, 'label', i.label, 'fname', i.fname, 'lname', i.lname, 'individual_uri', i.individual_uri) END,
               'institution', CASE WHEN inst.id IS NULL THEN NULL ELSE json_build_object(
                  'id', inst.id, 'label', inst.label, 'ror', inst.ror) END,
               'description', c.description) ORDER BY sc.position) AS collectors
        FROM sample_collector sc
        JOIN collector c ON c.id = sc.collector_id
        LEFT JOIN individual i ON i.id = c.individual_id
        LEFT JOIN institution inst ON inst.id = c.institution_id
       WHERE sc.sample_id = s.id
    ) col ON true
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object(
               'id', rr.id, 'label', rr.label, 'related_resource_type', rr.related_resource_type, 'uri', rr.uri,
               'uri_type', rr.uri_type, 'description', rr.description) ORDER BY rr.id) AS linked_resources
        FROM sample_related_resource srr
        JOIN related_resource rr ON rr.id = srr.related_resource_id
       WHERE srr.sample_id = s.id
    ) lrr ON true`;

const BY_IGSN = `${SAMPLE_DETAIL} WHERE s.igsn = $1`;
export const BY_IDS = `${SAMPLE_DETAIL} WHERE s.id = ANY($1::bigint[])`;
/**
 * One id: a statement of its own. Prepared, BY_IDS with one element keeps a custom plan for every
 * execution (its custom plan, sure of one row, always looks cheaper than the generic one, which
 * assumes ten), and planning the ten-way join costs ten times its execution; `s.id = $1` gets the
 * generic plan after five.
 */
const BY_ID = `${SAMPLE_DETAIL} WHERE s.id = $1::bigint`;
const BY_IGSNS = `${SAMPLE_DETAIL} WHERE s.igsn = ANY($1::text[])`;
/** SAMPLE_DETAIL of one IGSN with `state` selected beside it as `caller_state` (SampleRepository.byIgsnWithState). */
export function byIgsnWithState(suffix: string, state: Sql): Sql {
  return sql`SELECT d.*, ${state} AS caller_state FROM (${raw(SAMPLE_DETAIL)} WHERE s.igsn = ${suffix}) d`;
}

/**
 * byIgsnWithState's statement for each text of `state`: its prepared statement's name (one name
 * never stands for two texts) and its whole text, built once. Handing pg the same string each time
 * spares every fetch with a token composing and hashing ~6 KB of SQL (pg compares a named
 * statement's text with the one it prepared: the same string compares at once).
 */
const BY_IGSN_WITH_STATE = new Map<string, { name: string; text: string }>();

/**
 * Samples by key (id, IGSN) and the statements that write `sample` and `sample_collector`. The
 * reads of one consumer live beside it: SampleSearchRepository (search), SampleSelectionRepository
 * (exports, label sheets),
 * SamplePublicRepository (landing pages, sitemap, DataCite, OAI-PMH), SampleCurationRepository,
 * SampleHarvestRepository.
 *
 * Reads that return sample JSON run in two steps: first the ids (one table, one index, cheap to
 * plan), then SAMPLE_DETAIL for exactly those ids as a named prepared statement, planned once per
 * pooled connection. The ten-way join costs milliseconds to plan and well under one to execute.
 */
@Injectable()
export class SampleRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly routing: ReadRouting,
  ) {}

  /**
   * A read outside any transaction, named (prepared once per connection) when `name` is given. It
   * may run on a standby: ReadRouting decides (the primary for work that writes, and for callers
   * whose last write a standby has not replayed).
   */
  private pooled<T extends QueryResultRow>(text: string, values: unknown[], name?: string): Promise<T[]> {
    return this.routing.read((source) => pooledQuery<T>(source, text, values, name));
  }

  // ---------------------------------------------------------------- reads

  async byIgsn(suffix: string, manager?: EntityManager): Promise<SampleRow | undefined> {
    if (manager) return (await manager.query<SampleRow[]>(BY_IGSN, [suffix]))[0];
    return (await this.pooled<SampleRow>(BY_IGSN, [suffix], 'sample_by_igsn'))[0];
  }

  /**
   * The row of an IGSN with `state` (a scalar subquery, e.g. a bearer token's pair state, see
   * UncheckedCaller) selected beside it, in one round trip; undefined when no sample has the IGSN.
   * Always on the primary: what `state` reads must be current (a revocation holds at once).
   */
  async byIgsnWithState(suffix: string, state: Sql): Promise<{ row: SampleRow; state: unknown } | undefined> {
    const stateQuery = state.toQuery();
    // The state's parameters come first in the statement, the IGSN's last (checked when built).
    const values = [...stateQuery.values, suffix];
    let statement = BY_IGSN_WITH_STATE.get(stateQuery.text);
    if (statement === undefined) {
      const whole = byIgsnWithState(suffix, state).toQuery();
      if (whole.values.length !== values.length || whole.values.some((value, n) => value !== values[n])) {
        throw new Error("byIgsnWithState: the statement's parameters are not the state's followed by the IGSN");
      }
      statement = { name: `sample_by_igsn_with_state_${BY_IGSN_WITH_STATE.size}`, text: whole.text };
      BY_IGSN_WITH_STATE.set(stateQuery.text, statement);
    }
    const [row] = await pooledQuery<SampleRow & { caller_state: unknown }>(
      this.dataSource,
      statement.text,
      values,
      statement.name,
    );
    return row && { row, state: row.caller_state };
  }

  /** The rows of these IGSNs (bare suffixes), in no particular order. */
  async byIgsns(suffixes: string[]): Promise<SampleRow[]> {
    if (!suffixes.length) return [];
    return this.pooled<SampleRow>(BY_IGSNS, [suffixes], 'sample_by_igsns');
  }

  /** The rows of these ids, in the order given. */
  async byIds(ids: (number | string)[], manager?: EntityManager): Promise<SampleRow[]> {
    if (!ids.length) return [];
    const [text, values, name] =
      ids.length === 1 ? [BY_ID, [String(ids[0])], 'sample_by_id'] : [BY_IDS, [ids.map(String)], 'sample_by_ids'];
    const rows = manager
      ? await manager.query<SampleRow[]>(text, values)
      : await this.pooled<SampleRow>(text, values, name);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(String(id))).filter((row): row is SampleRow => row !== undefined);
  }
}
