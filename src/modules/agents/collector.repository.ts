import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Sql, sql } from '../../core/database/sql';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { Collector } from './collector.entity';

/** Every SQL statement of `collector`. Statements given a manager run in the caller's transaction. */
@Injectable()
export class CollectorRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly labelledRowRepository: LabelledRowRepository,
  ) {}

  async exists(id: number, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    return manager.existsBy(Collector, { id });
  }

  /**
   * The id of the row for this (individual, institution, description), inserted unless it exists;
   * concurrent callers settle on one row through the unique index (INSERT … ON CONFLICT DO NOTHING).
   */
  async createOrMatch(
    individualId: number | null,
    institutionId: number | null,
    description: string | null,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<number> {
    const params = [individualId, institutionId, description];
    const find = async () =>
      (
        await manager.query<{ id: number }[]>(
          `SELECT id FROM collector
           WHERE COALESCE(individual_id, 0) = COALESCE($1::int, 0) AND COALESCE(institution_id, 0) = COALESCE($2::int, 0)
             AND md5(COALESCE(description, '')) = md5(COALESCE($3::text, ''))`,
          params,
        )
      )[0]?.id;
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await find();
      if (existing !== undefined) return existing;
      const inserted = await manager.query<{ id: number }[]>(
        `INSERT INTO collector (individual_id, institution_id, description) VALUES ($1, $2, $3)
         ON CONFLICT ((COALESCE(individual_id, 0)), (COALESCE(institution_id, 0)), (md5(COALESCE(description, ''))))
         DO NOTHING RETURNING id`,
        params,
      );
      if (inserted.length) return inserted[0].id;
    }
    throw new Error('create-or-match on collector did not settle');
  }

  /** SQL, for a statement that asks other things too: whether a collector has this id. */
  existsSql(id: number): Sql {
    return sql`SELECT EXISTS (SELECT 1 FROM collector WHERE id = ${id})`;
  }

  /**
   * SQL, for a statement that asks other things too: the id of the row createOrMatch would find for
   * this individual (an expression), no institution and this description; NULL when there is none.
   */
  individualCollectorIdSql(individualId: Sql, description: string | null): Sql {
    return sql`SELECT id FROM collector
      WHERE COALESCE(individual_id, 0) = COALESCE(${individualId}, 0) AND COALESCE(institution_id, 0) = 0
        AND md5(COALESCE(description, '')) = md5(COALESCE(${description}::text, ''))`;
  }

  /** Collector rows by id with their individual and institution, in the order given. */
  async load(ids: number[], manager?: EntityManager): Promise<Collector[]> {
    return this.labelledRowRepository.loadInIdOrder(Collector, ids, { individual: true, institution: true }, manager);
  }
}
