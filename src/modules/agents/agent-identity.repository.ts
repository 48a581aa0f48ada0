import { EntityManager } from 'typeorm';
import { AgentIdentifier } from './agent-identity';

/**
 * The statements that tell records of one agent table apart (by its identifier, or by label), shared
 * by IndividualRepository (ORCID) and InstitutionRepository (ROR). They run in the caller's
 * transaction.
 */
export abstract class AgentIdentityRepository {
  protected constructor(private readonly identifier: AgentIdentifier) {}

  /** Rows whose identifier is the same as `value`, oldest first. */
  async idsByIdentifier(manager: EntityManager, value: string): Promise<number[]> {
    const identifier = this.identifier;
    const rows = await manager.query<{ id: number }[]>(
      `SELECT id FROM ${identifier.table}
     WHERE ${identifier.column} IS NOT NULL AND ${identifier.key(identifier.column)} = ${identifier.key('$1')}
     ORDER BY id`,
      [value],
    );
    return rows.map((row) => row.id);
  }

  /** Rows labelled `label` (trimmed, case-insensitive), oldest first. */
  async idsByLabel(manager: EntityManager, label: string): Promise<number[]> {
    const rows = await manager.query<{ id: number }[]>(
      `SELECT id FROM ${this.identifier.table} WHERE lower(btrim(label)) = lower(btrim($1)) ORDER BY id`,
      [label],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Serialises, until the transaction ends, the writers that create a record under one identifier,
   * so two of them cannot both find none and both insert.
   */
  async lockIdentifier(manager: EntityManager, value: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1 || ${this.identifier.key('$2')}))`, [
      `${this.identifier.table}:`,
      value,
    ]);
  }
}
