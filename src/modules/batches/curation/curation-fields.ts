import { FlatColumnSql, FlatValueFormat, flatColumnSql } from '../../samples';
import { BATCH_FIELDS, BatchField } from '../batch-fields';

/**
 * How the curation view reads each column of the batch workbook (BATCH_FIELDS) back from the
 * stored samples: the samples module's flat column for the key (its SQL, run only by
 * SampleRepository) and how its value becomes a string.
 */
export type CurationValueFormat = FlatValueFormat;

export interface CurationColumn extends FlatColumnSql {
  key: string;
  label: string;
}

function columnFor(field: BatchField): CurationColumn | undefined {
  const flat = flatColumnSql(field.key, field.type);
  return flat ? { key: field.key, label: field.label, ...flat } : undefined;
}

/**
 * The curation columns in workbook order, labelled as the template labels them. A workbook field
 * the sample cannot be read back into yet is left out (curation-fields.spec.ts fails until it is
 * added to sample-flat-columns.ts).
 */
export function curationColumns(fields: readonly BatchField[] = BATCH_FIELDS): CurationColumn[] {
  return fields.map(columnFor).filter((column): column is CurationColumn => column !== undefined);
}

/** Any value the driver returns, as text (strings as they are; anything unexpected as JSON). */
function plain(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/**
 * One value as the curation view shows it: numbers as JSON prints them, date-times in ISO 8601 UTC,
 * IGSNs in their DOI form, lists (already joined in SQL) and labels as they are; empty → null.
 */
export function formatCurationValue(
  value: unknown,
  format: CurationValueFormat,
  toDoi: (suffix: string) => string,
): string | null {
  if (value === null || value === undefined || value === '') return null;
  switch (format) {
    case 'number':
      return typeof value === 'number' ? JSON.stringify(value) : plain(value);
    case 'date':
      return plain(value);
    case 'igsn':
      return toDoi(plain(value));
    case 'text':
      return plain(value);
  }
}
