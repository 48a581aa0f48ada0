import { EntityManager } from 'typeorm';

export interface CreateOrMatchSpec {
  /** The table (a trusted constant). */
  table: string;
  /** The label to match, already trimmed; rows match when `lower(btrim(label))` is equal. */
  label: string;
  /** Column → value of the row to insert when nothing matches (the label included). */
  values: Record<string, unknown>;
  /**
   * The unique index that settles concurrent inserts: `label` for tables whose labels are unique
   * (`lower(btrim(label))`), `match_key` for tables where only create-or-match rows are unique
   * (their `match_key` column gets the normalised label).
   */
  uniqueBy: 'label' | 'match_key';
}

export interface CreateOrMatchResult {
  id: number;
  created: boolean;
}

const ATTEMPTS = 3;

/**
 * Finds the row filed under a label, or inserts it. Concurrent callers (API replicas, workers) race
 * on a unique index with INSERT … ON CONFLICT DO NOTHING, never on a read-then-write, so they all
 * end up with the same single row. Works inside a caller's READ COMMITTED transaction: each
 * statement sees rows that other transactions committed meanwhile.
 */
export async function createOrMatch(manager: EntityManager, spec: CreateOrMatchSpec): Promise<CreateOrMatchResult> {
  const find = async (): Promise<number | undefined> => {
    const rows = await manager.query<{ id: number }[]>(
      `SELECT id FROM ${spec.table} WHERE lower(btrim(label)) = lower(btrim($1)) ORDER BY id LIMIT 1`,
      [spec.label],
    );
    return rows[0]?.id;
  };
  const columns = Object.keys(spec.values);
  const params = columns.map((column) => spec.values[column]);
  const placeholders = columns.map((_, i) => `$${i + 1}`);
  let conflict = '((lower(btrim(label))))';
  if (spec.uniqueBy === 'match_key') {
    columns.push('match_key');
    params.push(spec.label);
    placeholders.push(`lower(btrim($${params.length}))`);
    conflict = '(match_key)';
  }
  const insert = `INSERT INTO ${spec.table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')})
    ON CONFLICT ${conflict} DO NOTHING RETURNING id`;

  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const existing = await find();
    if (existing !== undefined) return { id: existing, created: false };
    const inserted = await manager.query<{ id: number }[]>(insert, params);
    if (inserted.length) return { id: inserted[0].id, created: true };
    // Another transaction committed the row between our SELECT and INSERT: read it.
    const winner = await find();
    if (winner !== undefined) return { id: winner, created: false };
  }
  throw new Error(`create-or-match on ${spec.table} did not settle for label "${spec.label}"`);
}

/** Options of every create-or-match service. */
export interface MatchOptions {
  /** The caller's transaction; without one each statement commits on its own. */
  manager?: EntityManager;
  /** The user to record as creator of rows that get created. */
  createdBy?: number | null;
  /** The field path errors are reported under, e.g. `current_archive` or `collectors.2`. */
  field?: string;
}

/** `prefix.name`, or `name` without a prefix. */
export function fieldPath(prefix: string | undefined, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}
