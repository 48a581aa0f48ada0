import { EntityManager } from 'typeorm';

/** A `?search=` over one table; table, column and condition names are trusted constants, never input. */
export interface LabelSearch {
  table: string;
  /** Columns searched (accent- and case-insensitive substring); default `label` and `alt_label`. */
  columns?: string[];
  /** Columns that also match when equal to the whole term, case-insensitively (codes such as `iso3166code`). */
  codeColumns?: string[];
  /** A condition every row must meet, on the table alias `t` (e.g. `t.active`). */
  where?: string;
  /** Orders rows of equal relevance; default `label`, compared accent- and case-insensitively. */
  orderBy?: string;
  search?: string | null;
  limit?: number;
}

/** The search term as given, trimmed; null when there is nothing to search for. */
export function searchTerm(search: string | null | undefined): string | null {
  const term = search?.trim();
  return term ? term : null;
}

/** Escapes LIKE's wildcards so `50%` and `a_b` match literally. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Ids of the matching rows, best first: an exact match (label, alt label or code), then a prefix
 * match, then any other substring match, each group by label. The folded expression is the one the
 * trigram indexes are built on (`lower(immutable_unaccent(column))`), so `LIKE '%…%'` can use them.
 */
export async function searchIds(manager: Pick<EntityManager, 'query'>, options: LabelSearch): Promise<number[]> {
  const columns = options.columns ?? ['label', 'alt_label'];
  const codes = options.codeColumns ?? [];
  const folded = (column: string) => `lower(immutable_unaccent(t.${column}))`;
  const term = searchTerm(options.search);
  const params: unknown[] = [];
  const conditions = options.where ? [`(${options.where})`] : [];
  let relevance: string | null = null;
  if (term !== null) {
    params.push(term, escapeLike(term));
    const exact = 'lower(immutable_unaccent($1))';
    const pattern = 'lower(immutable_unaccent($2))';
    const codeMatches = codes.map((code) => `lower(t.${code}) = lower($1)`);
    conditions.push(
      `(${[...columns.map((c) => `${folded(c)} LIKE '%' || ${pattern} || '%'`), ...codeMatches].join(' OR ')})`,
    );
    relevance = `CASE
      WHEN ${[...columns.map((c) => `${folded(c)} = ${exact}`), ...codeMatches].join(' OR ')} THEN 0
      WHEN ${columns.map((c) => `${folded(c)} LIKE ${pattern} || '%'`).join(' OR ')} THEN 1
      ELSE 2 END`;
  }
  let sql = `SELECT t.id FROM ${options.table} t`;
  if (conditions.length) sql += ` WHERE ${conditions.join(' AND ')}`;
  sql += ` ORDER BY ${relevance ? `${relevance}, ` : ''}${folded(options.orderBy ?? 'label')}, t.id`;
  if (options.limit !== undefined) {
    params.push(options.limit);
    sql += ` LIMIT $${params.length}`;
  }
  const rows = await manager.query<{ id: number }[]>(sql, params);
  return rows.map((row) => row.id);
}

/** Puts rows loaded with `WHERE id IN (…)` back into the order of `ids`. */
export function inIdOrder<T extends { id: number }>(rows: T[], ids: number[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)).filter((row): row is T => row !== undefined);
}
