/** A `?search=` over one table (LabelledRowRepository.searchIds); table, column and condition names are trusted constants, never input. */
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

/** Puts rows loaded with `WHERE id IN (…)` back into the order of `ids`. */
export function inIdOrder<T extends { id: number }>(rows: T[], ids: number[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)).filter((row): row is T => row !== undefined);
}
