import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { ROR } from './agent-identifier';
import { AgentRepository } from './agent.repository';
import { Institution } from './institution.entity';

/**
 * Every SQL statement of `institution` (create-or-match by label goes through LabelledRowRepository).
 * Statements given a manager run in the caller's transaction.
 */
@Injectable()
export class InstitutionRepository extends AgentRepository<Institution> {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    labelled: LabelledRowRepository,
  ) {
    super({ identifier: ROR, entity: Institution, relations: { country: true, parentInstitutions: true } }, labelled);
  }

  async exists(id: number): Promise<boolean> {
    return this.dataSource.manager.existsBy(Institution, { id });
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
}
