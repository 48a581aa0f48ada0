import { SAMPLE_FIELDS, SampleField, normalizedHeader } from '../samples';

/**
 * The columns of batch registration — what the template workbook writes, what the upload reads
 * (by label, key or alias), what the curation view and the xlsx export's Samples sheet show: the
 * batch columns of the field catalogue (samples/sample-fields.ts), in its order.
 */
export type BatchFieldType = 'text' | 'number' | 'date' | 'list' | 'igsn';

export type BatchField = SampleField & { type: BatchFieldType; batch: true; help: string };

function isBatchField(field: SampleField): field is BatchField {
  return field.batch === true;
}

export const BATCH_FIELDS: readonly BatchField[] = SAMPLE_FIELDS.filter(isBatchField);

const BY_KEY = new Map(BATCH_FIELDS.map((field) => [field.key, field]));
const BY_HEADER = new Map<string, BatchField>();
for (const field of BATCH_FIELDS) {
  for (const header of [field.key, field.label, ...(field.aliases ?? [])])
    BY_HEADER.set(normalizedHeader(header), field);
}

export function batchFieldByKey(key: string): BatchField | undefined {
  return BY_KEY.get(key);
}

/** The field a header cell names (its label, its key or an alias; any case and spacing). */
export function batchFieldByHeader(header: string): BatchField | undefined {
  return BY_HEADER.get(normalizedHeader(header));
}

/** The columns of a template: the fields always present, then the selected ones, in catalog order. */
export function templateColumns(selected: readonly string[] | null | undefined): BatchField[] {
  const chosen = new Set(selected ?? []);
  return BATCH_FIELDS.filter((field) => field.always || chosen.has(field.key));
}
