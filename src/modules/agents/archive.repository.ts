import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsRelations } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Sql, sql } from '../../core/database/sql';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { Archive } from './archive.entity';

/** What an Archive read needs loaded. */
const ARCHIVE_RELATIONS: FindOptionsRelations<Archive> = {
  country: true,
  parentInstitution: { country: true, parentInstitutions: true },
};

/**
 * Every SQL statement of `archive` (create-or-match, label checks and fill-ins go through
 * LabelledRowRepository). Statements given a manager run in the caller's transaction.
 */
@Injectable()
export class ArchiveRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly labelledRowRepository: LabelledRowRepository,
  ) {}

  /** The archives a `?search=` matches, best first. */
  async search(search: string | undefined, limit: number): Promise<Archive[]> {
    return this.load(await this.labelledRowRepository.searchIds({ table: 'archive', search, limit }));
  }

  async update(id: number, fields: QueryDeepPartialEntity<Archive>): Promise<void> {
    await this.dataSource.manager.update(Archive, id, fields);
  }

  /** SQL, for a statement that asks other things too: the archive labelled `label` (to_jsonb of its row), else NULL. */
  byLabelSql(label: string): Sql {
    return sql`SELECT to_jsonb(a) FROM archive a WHERE lower(btrim(a.label)) = lower(btrim(${label})) ORDER BY a.id LIMIT 1`;
  }

  /** Archives with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Archive[]> {
    return this.labelledRowRepository.loadInIdOrder(Archive, ids, ARCHIVE_RELATIONS, manager);
  }
}
