import { EntityManager } from 'typeorm';

/** What LabelledRowRepository.createOrMatch files a row under, and the row it inserts. */
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
