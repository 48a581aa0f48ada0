import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, FindOptionsRelations, FindOptionsWhere, In } from 'typeorm';
import { Sql, and, bind, empty, identifier, join, or, raw, sql } from '../../../core/database/sql';
import { CreateOrMatchResult, CreateOrMatchSpec } from './create-or-match';
import { LabelSearch, escapeLike, inIdOrder, searchTerm } from './label-search';

const ATTEMPTS = 3;

/**
 * The statements shared by the labelled tables (vocabularies, platforms, archives, institutions,
 * individuals): search by label, create-or-match by label, the label another row has, filling in
 * blanks, loading rows in a given order. Table and column names are trusted constants of the
 * calling service, never input; values are always parameters. Statements given a manager run in the
 * caller's transaction.
 */
@Injectable()
export class LabelledRowRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Finds the row filed under a label, or inserts it. Concurrent callers (API replicas, workers) race
   * on a unique index with INSERT … ON CONFLICT DO NOTHING, never on a read-then-write, so they all
   * end up with the same single row. Works inside a caller's READ COMMITTED transaction: each
   * statement sees rows that other transactions committed meanwhile.
   */
  async createOrMatch(
    spec: CreateOrMatchSpec,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<CreateOrMatchResult> {
    const find = async (): Promise<number | undefined> => {
      const rows = await manager.query<{ id: number }[]>(
        `SELECT id FROM ${spec.table} WHERE lower(btrim(label)) = lower(btrim($1)) ORDER BY id LIMIT 1`,
        [spec.label],
      );
      return rows[0]?.id;
    };
    const byMatchKey = spec.uniqueBy === 'match_key';
    const columns = Object.keys(spec.values).map((column) => identifier(column));
    const values = Object.values(spec.values).map((value) => sql`${value}`);
    if (byMatchKey) {
      columns.push(raw('match_key'));
      values.push(sql`lower(btrim(${spec.label}))`);
    }
    const conflict = raw(byMatchKey ? '(match_key)' : '((lower(btrim(label))))');
    const insert = sql`INSERT INTO ${identifier(spec.table)} (${join(columns, ', ')}) VALUES (${join(values, ', ')})
    ON CONFLICT ${conflict} DO NOTHING RETURNING id`.toQuery();

    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const existing = await find();
      if (existing !== undefined) return { id: existing, created: false };
      const inserted = await manager.query<{ id: number }[]>(insert.text, insert.values);
      if (inserted.length) return { id: inserted[0].id, created: true };
      // Another transaction committed the row between our SELECT and INSERT: read it.
      const winner = await find();
      if (winner !== undefined) return { id: winner, created: false };
    }
    throw new Error(`create-or-match on ${spec.table} did not settle for label "${spec.label}"`);
  }

  /**
   * Ids of the matching rows, best first: an exact match (label, alt label or code), then a prefix
   * match, then any other substring match, each group by label. The folded expression is the one the
   * trigram indexes are built on (`lower(immutable_unaccent(column))`), so `LIKE '%…%'` can use them.
   */
  async searchIds(
    options: LabelSearch,
    manager: Pick<EntityManager, 'query'> = this.dataSource.manager,
  ): Promise<number[]> {
    const columns = options.columns ?? ['label', 'alt_label'];
    const codes = options.codeColumns ?? [];
    const folded = (column: string) => sql`lower(immutable_unaccent(t.${identifier(column)}))`;
    const term = searchTerm(options.search);
    // `where` is a constant condition of the calling service (e.g. `t.active`), never input.
    const conditions: Sql[] = options.where ? [sql`(${raw(options.where)})`] : [];
    let relevance = empty;
    if (term !== null) {
      const given = bind(term);
      const exact = sql`lower(immutable_unaccent(${given}))`;
      const pattern = sql`lower(immutable_unaccent(${escapeLike(term)}))`;
      const codeMatches = codes.map((code) => sql`lower(t.${identifier(code)}) = lower(${given})`);
      conditions.push(or(...columns.map((c) => sql`${folded(c)} LIKE '%' || ${pattern} || '%'`), ...codeMatches));
      relevance = sql`CASE
      WHEN ${join([...columns.map((c) => sql`${folded(c)} = ${exact}`), ...codeMatches], ' OR ')} THEN 0
      WHEN ${join(
        columns.map((c) => sql`${folded(c)} LIKE ${pattern} || '%'`),
        ' OR ',
      )} THEN 1
      ELSE 2 END, `;
    }
    const where = and(...conditions);
    const { text, values } =
      sql`SELECT t.id FROM ${identifier(options.table)} t${where.isEmpty ? empty : sql` WHERE ${where}`} ORDER BY ${relevance}${folded(options.orderBy ?? 'label')}, t.id${options.limit !== undefined ? sql` LIMIT ${options.limit}` : empty}`.toQuery();
    const rows = await manager.query<{ id: number }[]>(text, values);
    return rows.map((row) => row.id);
  }

  /** Rows by id with the relations given, in the order of `ids` (repeats kept, missing rows dropped). */
  async loadInIdOrder<T extends { id: number }>(
    entity: EntityTarget<T>,
    ids: number[],
    relations?: FindOptionsRelations<T>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<T[]> {
    if (!ids.length) return [];
    const rows = await manager.find(entity, {
      where: { id: In([...new Set(ids)]) } as FindOptionsWhere<T>,
      relations,
    });
    return inIdOrder(rows, ids);
  }

  /** The id of a row other than `id` labelled `label` (trimmed, case-insensitive), if there is one. */
  async otherWithLabel(
    table: string,
    label: string,
    id: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<number | undefined> {
    const [other] = await manager.query<{ id: number }[]>(
      `SELECT id FROM ${table} WHERE lower(btrim(label)) = lower(btrim($1)) AND id <> $2`,
      [label, id],
    );
    return other?.id;
  }

  /**
   * Sets the columns that are NULL in the row to the values given, in one UPDATE that writes no
   * other column: two writers filling one blank differently end with one value stored.
   */
  async fillBlanks(
    table: string,
    id: number,
    values: { column: string; value: unknown }[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    const assignments = values.map(({ column, value }) => {
      const name = identifier(column);
      return sql`${name} = COALESCE(${name}, ${value})`;
    });
    const update = sql`UPDATE ${identifier(table)} SET ${join(assignments, ', ')} WHERE id = ${id}`.toQuery();
    await manager.query(update.text, update.values);
  }
}
