import { Injectable } from '@nestjs/common';
import { DeepPartial, EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { ORCID } from './agent-identity';
import { AgentIdentityRepository } from './agent-identity.repository';
import { Individual } from './individual.entity';

/**
 * Every SQL statement of `individual` (create-or-match by label goes through LabelledRowRepository).
 * Statements given a manager run in the caller's transaction.
 */
@Injectable()
export class IndividualRepository extends AgentIdentityRepository {
  constructor(private readonly labelled: LabelledRowRepository) {
    super(ORCID);
  }

  /** The individuals a `?search=` matches, best first. */
  async search(search: string | undefined, limit: number): Promise<Individual[]> {
    return this.load(await this.labelled.searchIds({ table: 'individual', search, limit }));
  }

  /** Inserts a row from entity fields; the row with its id. */
  async insert(manager: EntityManager, fields: DeepPartial<Individual>): Promise<Individual> {
    return manager.save(manager.create(Individual, fields));
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

  async update(manager: EntityManager, id: number, fields: QueryDeepPartialEntity<Individual>): Promise<void> {
    await manager.update(Individual, id, fields);
  }

  /** Individuals with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Individual[]> {
    return this.labelled.loadInIdOrder(
      Individual,
      ids,
      { country: true, institutions: { country: true, parentInstitutions: true } },
      manager,
    );
  }
}
