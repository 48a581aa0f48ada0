import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, DeepPartial, EntityManager, FindOptionsRelations } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { ROR } from './agent-identity';
import { AgentIdentityRepository } from './agent-identity.repository';
import { Institution } from './institution.entity';

/** What an Institution read needs loaded. */
const INSTITUTION_RELATIONS: FindOptionsRelations<Institution> = { country: true, parentInstitutions: true };

/**
 * Every SQL statement of `institution` (create-or-match by label goes through LabelledRowRepository).
 * Statements given a manager run in the caller's transaction.
 */
@Injectable()
export class InstitutionRepository extends AgentIdentityRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly labelled: LabelledRowRepository,
  ) {
    super(ROR);
  }

  /** The institutions a `?search=` matches, best first. */
  async search(search: string | undefined, limit: number): Promise<Institution[]> {
    return this.load(await this.labelled.searchIds({ table: 'institution', search, limit }));
  }

  async exists(id: number): Promise<boolean> {
    return this.dataSource.manager.existsBy(Institution, { id });
  }

  /** Inserts a row from entity fields; the row with its id. */
  async insert(manager: EntityManager, fields: DeepPartial<Institution>): Promise<Institution> {
    return manager.save(manager.create(Institution, fields));
  }

  /** Inserts the organisation a collector names by ROR id; the new id. */
  async insertIdentified(
    manager: EntityManager,
    row: { label: string; ror: string; city: string | null; countryId: number | null; createdBy: number | null },
  ): Promise<number> {
    const [inserted] = await manager.query<{ id: number }[]>(
      `INSERT INTO institution (label, ror, city, country_id, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [row.label, row.ror, row.city, row.countryId, row.createdBy],
    );
    return inserted.id;
  }

  async update(manager: EntityManager, id: number, fields: QueryDeepPartialEntity<Institution>): Promise<void> {
    await manager.update(Institution, id, fields);
  }

  /** Institutions with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Institution[]> {
    return this.labelled.loadInIdOrder(Institution, ids, INSTITUTION_RELATIONS, manager);
  }
}
