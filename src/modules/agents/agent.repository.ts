import { DeepPartial, EntityManager, EntityTarget, FindOptionsRelations } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Sql, around, bind, identifier, raw, sql } from '../../core/database/sql';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { AgentIdentifier } from './agent-identifier';

/**
 * The statements individuals and institutions share: telling records apart (by their identifier,
 * or by label), search, insert, update and the read of whole rows. IndividualRepository (ORCID) and
 * InstitutionRepository (ROR) add their identified insert. Statements given a manager run in the
 * caller's transaction.
 */
export abstract class AgentRepository<T extends { id: number }> {
  protected constructor(
    private readonly agent: {
      identifier: AgentIdentifier;
      entity: EntityTarget<T>;
      /** What a read of the row needs loaded. */
      relations: FindOptionsRelations<T>;
    },
    protected readonly labelled: LabelledRowRepository,
  ) {}

  /** The rows a `?search=` matches, best first. */
  async search(search: string | undefined, limit: number): Promise<T[]> {
    return this.load(await this.labelled.searchIds({ table: this.agent.identifier.table, search, limit }));
  }

  /** Inserts a row from entity fields; the row with its id. */
  async insert(manager: EntityManager, fields: DeepPartial<T>): Promise<T> {
    return manager.save(manager.create(this.agent.entity, fields));
  }

  async update(manager: EntityManager, id: number, fields: QueryDeepPartialEntity<T>): Promise<void> {
    await manager.update(this.agent.entity, id, fields);
  }

  /** Rows with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<T[]> {
    return this.labelled.loadInIdOrder(this.agent.entity, ids, this.agent.relations, manager);
  }

  /** Rows whose identifier is the same as `value`, oldest first. */
  async idsByIdentifier(manager: EntityManager, value: string): Promise<number[]> {
    const identifier = this.agent.identifier;
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
      `SELECT id FROM ${this.agent.identifier.table} WHERE lower(btrim(label)) = lower(btrim($1)) ORDER BY id`,
      [label],
    );
    return rows.map((row) => row.id);
  }

  /**
   * SQL, for a statement that asks other things too: the rows idsByIdentifier (with `value`) or else
   * idsByLabel would find, oldest first, as a jsonb array of each row's columns (to_jsonb) plus
   * `also`, an expression of the row's id (`also(id)`); NULL when there are none.
   */
  candidatesSql(value: string | null, label: string | null, also: (id: Sql) => Sql): Sql {
    const { table, column, key } = this.agent.identifier;
    const where = value
      ? sql`${identifier(column)} IS NOT NULL AND ${around(key, raw(column))} = ${around(key, bind(value))}`
      : sql`lower(btrim(label)) = lower(btrim(${label}))`;
    return sql`SELECT jsonb_agg(to_jsonb(r) || jsonb_build_object('also', (${also(raw('r.id'))})) ORDER BY r.id)
      FROM ${identifier(table)} r WHERE ${where}`;
  }

  /**
   * Serialises, until the transaction ends, the writers that create a record under one identifier,
   * so two of them cannot both find none and both insert.
   */
  async lockIdentifier(manager: EntityManager, value: string): Promise<void> {
    const identifier = this.agent.identifier;
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1 || ${identifier.key('$2')}))`, [
      `${identifier.table}:`,
      value,
    ]);
  }
}
