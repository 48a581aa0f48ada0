import { SAMPLE_CSV_COLUMNS, SampleColumn } from '../metadata-formats/csv.serializer';
import { SampleDto } from '../samples';

/** What every label prints anyway (the QR code stands for the address). */
const ALWAYS_PRINTED = new Set<string>(['igsn', 'name']);

/**
 * The fields a label may add, as the CSV export names and writes them (one rendering of a field as
 * text): any column of the CSV but the IGSN and the name, which every label has.
 */
export const LABEL_FIELD_COLUMNS: readonly SampleColumn[] = SAMPLE_CSV_COLUMNS.filter(
  (column) => !ALWAYS_PRINTED.has(column.key),
);
export const LABEL_FIELDS: readonly string[] = LABEL_FIELD_COLUMNS.map((column) => column.key);
export const MAX_LABEL_FIELDS = 3;
/** When a request names none: what a sample's label usually carries besides its name. */
export const DEFAULT_LABEL_FIELDS = ['object_type', 'collectors', 'sampling_start_date'];

/** `Header: value` lines for the fields (left out when the sample has no value). */
export function labelLines(sample: SampleDto, fields: readonly string[]): string[] {
  return fields.flatMap((key) => {
    const column = LABEL_FIELD_COLUMNS.find((candidate) => candidate.key === key);
    const value = column?.value(sample);
    if (!column || value === null || value === undefined || value === '') return [];
    return [`${column.header}: ${String(value)}`];
  });
}
