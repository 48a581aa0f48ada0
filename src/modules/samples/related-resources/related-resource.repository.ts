import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Sql, and, bind, empty, raw, sql } from '../../../core/database/sql';
import { escapeLike } from '../../vocabularies/common/label-search';
import { RelatedResourceObject, SampleRelatedResourceLink } from './related-resource.entity';

/** `?ordering=` of the list: a column, `-` for descending; ties broken by id. */
export const RELATED_RESOURCE_ORDERINGS = {
  id: 'r.id',
  label: 'lower(r.label)',
  created_at: 'r.created_at',
  updated_at: 'r.updated_at',
  related_resource_type: 'r.related_resource_type',
  uri_type: 'r.uri_type',
} as const;
export type RelatedResourceOrdering = keyof typeof RELATED_RESOURCE_ORDERINGS;

export interface RelatedResourceListQuery {
  /** Only the resources this user created (everyone's when undefined: staff). */
  createdBy?: number;
  /** Substring of the label, URI or description, any case. */
  search?: string;
  ordering: { column: RelatedResourceOrdering; descending: boolean };
  limit: number;
  offset: number;
}

/** Related resources and their links to samples (SQL only here). */
@Injectable()
export class RelatedResourceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(values: Omit<RelatedResourceObject, 'id' | 'createdAt' | 'updatedAt'>): Promise<RelatedResourceObject> {
    const row = this.dataSource.manager.create(RelatedResourceObject, values);
    return this.dataSource.manager.save(row);
  }

  async findById(id: number, manager: EntityManager = this.dataSource.manager): Promise<RelatedResourceObject | null> {
    return manager.findOneBy(RelatedResourceObject, { id });
  }

  /** Locks one resource for an update in `manager`'s transaction. */
  async lockById(manager: EntityManager, id: number): Promise<RelatedResourceObject | null> {
    return manager.findOne(RelatedResourceObject, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async update(manager: EntityManager, id: number, values: Partial<RelatedResourceObject>): Promise<void> {
    await manager.update(RelatedResourceObject, { id }, values);
  }

  /** A page of resources and the count of all that match. */
  async list(query: RelatedResourceListQuery): Promise<{ rows: RelatedResourceObject[]; count: number }> {
    const pattern = query.search ? bind(`%${escapeLike(query.search.toLowerCase())}%`) : undefined;
    const condition = and(
      query.createdBy !== undefined ? sql`r.created_by = ${query.createdBy}` : empty,
      pattern
        ? sql`(lower(r.label) LIKE ${pattern} OR lower(r.uri) LIKE ${pattern} OR lower(coalesce(r.description, '')) LIKE ${pattern})`
        : empty,
    );
    const where = condition.isEmpty ? empty : sql`WHERE ${condition}`;
    const direction = query.ordering.descending ? 'DESC' : 'ASC';
    const order = raw(`${RELATED_RESOURCE_ORDERINGS[query.ordering.column]} ${direction}, r.id ${direction}`);
    const run = <T>(statement: Sql) => {
      const { text, values } = statement.toQuery();
      return this.dataSource.query<T[]>(text, values);
    };
    const [ids, [{ count }]] = await Promise.all([
      run<{ id: number }>(
        sql`SELECT r.id FROM related_resource r ${where} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}`,
      ),
      run<{ count: number }>(sql`SELECT count(*)::int AS count FROM related_resource r ${where}`),
    ]);
    if (!ids.length) return { rows: [], count };
    const rows = await this.dataSource.manager.findBy(RelatedResourceObject, { id: In(ids.map((row) => row.id)) });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return { rows: ids.map((row) => byId.get(row.id) as RelatedResourceObject), count };
  }

  /** Which of `ids` exist and were created by `createdBy` (any creator when undefined). */
  async existingIds(manager: EntityManager, ids: number[], createdBy?: number): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await manager.query<{ id: number }[]>(
      `SELECT id FROM related_resource WHERE id = ANY($1::int[]) AND ($2::int IS NULL OR created_by = $2)`,
      [ids, createdBy ?? null],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** The sample's linked resources become exactly `ids`. */
  async replaceSampleLinks(manager: EntityManager, sampleId: number, ids: number[]): Promise<void> {
    await manager.delete(SampleRelatedResourceLink, { sampleId: String(sampleId) });
    await this.link(manager, [sampleId], ids);
  }

  /** Links every sample to every resource; links that exist already are kept. */
  async link(manager: EntityManager, sampleIds: number[], resourceIds: number[]): Promise<void> {
    if (!sampleIds.length || !resourceIds.length) return;
    await manager.query(
      `INSERT INTO sample_related_resource (sample_id, related_resource_id)
       SELECT s, r FROM unnest($1::bigint[]) s, unnest($2::int[]) r
       ON CONFLICT DO NOTHING`,
      [sampleIds, resourceIds],
    );
  }

  /**
   * Links each sample to its own resources, all in one statement (a batch links thousands of new
   * samples): the pairs travel as two parallel arrays.
   */
  async linkEach(manager: EntityManager, lists: { sampleId: number; resourceIds: number[] }[]): Promise<void> {
    const sampleIds = lists.flatMap((list) => list.resourceIds.map(() => list.sampleId));
    if (!sampleIds.length) return;
    await manager.query(
      `INSERT INTO sample_related_resource (sample_id, related_resource_id)
       SELECT * FROM unnest($1::bigint[], $2::int[])
       ON CONFLICT DO NOTHING`,
      [sampleIds, lists.flatMap((list) => list.resourceIds)],
    );
  }

  /** How many samples a resource is linked to. */
  async sampleCount(id: number): Promise<number> {
    const [row] = await this.dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM sample_related_resource WHERE related_resource_id = $1',
      [id],
    );
    return row.count;
  }

  /**
   * The samples linked to a resource show it: an edit of the resource is an update of each (their
   * last update date — and so their ETags — move, and the sample triggers send their DataCite
   * records again).
   */
  async markLinkedSamplesUpdated(manager: EntityManager, id: number, at: Date): Promise<void> {
    await manager.query(
      `UPDATE sample SET updated_at = $2
        WHERE id IN (SELECT sample_id FROM sample_related_resource WHERE related_resource_id = $1)`,
      [id, at],
    );
  }

  /**
   * The samples changed at `at` (a resource was linked to them): their last update date moves (and
   * so their ETags), and the sample triggers send their DataCite records again.
   */
  async markSamplesUpdated(manager: EntityManager, sampleIds: number[], at: Date): Promise<void> {
    if (sampleIds.length) {
      await manager.query('UPDATE sample SET updated_at = $2 WHERE id = ANY($1::bigint[])', [sampleIds, at]);
    }
  }
}
