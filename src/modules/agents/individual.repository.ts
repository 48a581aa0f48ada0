import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { ORCID } from './agent-identifier';
import { AgentRepository } from './agent.repository';
import { Individual } from './individual.entity';

/**
 * Every SQL statement of `individual` (create-or-match by label goes through LabelledRowRepository).
 * Statements given a manager run in the caller's transaction.
 */
@Injectable()
export class IndividualRepository extends AgentRepository<Individual> {
  constructor(labelled: LabelledRowRepository) {
    super(
      {
        identifier: ORCID,
        entity: Individual,
        relations: { country: true, institutions: { country: true, parentInstitutions: true } },
      },
      labelled,
    );
  }

  /** Inserts the person a collector names by identifier (individual_uri); the new id. */
  async insertIdentified(
    manager: EntityManager,
    row: { label: string; fname: string | null; lname: string | null; uri: string; createdBy: number | null },
  ): Promise<number> {
    const [inserted] = await manager.query<{ id: number }[]>(
      `INSERT INTO individual (label, fname, lname, individual_uri, created_by) VALUES ($1, $2, $3, $4, $5)
             RETURNING id`,
      [row.label, row.fname, row.lname, row.uri, row.createdBy],
    );
    return inserted.id;
  }
}
