import { BATCH_FIELDS } from '../batches/batch-fields';
import { SAMPLE_CSV_COLUMNS, SampleColumn } from '../metadata-formats/csv.serializer';
import { SampleCollector, SampleDto } from '../samples';

/*
 * The columns of an export. CSV: every SampleDto field (SAMPLE_CSV_COLUMNS, as the per-sample CSV).
 * xlsx: a `Samples` sheet laid out like a batch template — BATCH_FIELDS labels, in catalog order —
 * so an edited export can be uploaded again as a batch, and a `Details` sheet with the fields the
 * batch format has no column for (read-only fields, full lists), keyed by IGSN. Values come from
 * the same column functions in both formats, and both writers apply `formulaSafe`.
 */

const CSV_COLUMN_BY_KEY = new Map<string, SampleColumn>(SAMPLE_CSV_COLUMNS.map((column) => [column.key, column]));

/**
 * The collectors, when the batch columns can say all of them: individuals only (no institution),
 * names without `;` (the Collector cell's separator) and, with several, details without `;` (the
 * Collector Detail cell holds one part per collector). Otherwise the batch columns stay empty.
 */
function batchCollectors(sample: SampleDto): SampleCollector[] | undefined {
  const all = sample.collectors;
  if (!all.length || !all.every((c) => c.individual?.label && !c.individual.label.includes(';') && !c.institution)) {
    return undefined;
  }
  return all.length === 1 || all.every((c) => !c.description?.includes(';')) ? all : undefined;
}

function collectorDetails(sample: SampleDto): string | null {
  const all = batchCollectors(sample);
  if (!all?.some((collector) => collector.description)) return null;
  return all.map((collector) => collector.description ?? '').join('; ');
}

/** The only related link, when the batch columns (`Related URL`, `Related URL Description`) can say all of it. */
function onlyRelatedResource(sample: SampleDto) {
  const [resource] = sample.related_resources;
  return sample.related_resources.length === 1 && !resource.relation_type ? resource : undefined;
}

/**
 * Batch columns that flatten a nested SampleDto field (the batch upload rebuilds the object from
 * them). `key` names the SampleDto field the value comes from. Lists the batch format holds only
 * in part (collectors, one related link) are filled only when re-uploading them loses nothing;
 * otherwise the cells stay empty — an update leaves what is stored alone — and the full list is
 * in the Details sheet.
 */
const FLATTENED_BATCH_COLUMNS: Record<string, Omit<SampleColumn, 'header'>> = {
  platform_label: { key: 'platform', value: (s) => s.platform?.label || null },
  platform_type: { key: 'platform', value: (s) => (s.platform?.label ? s.platform.platform_type : null) },
  platform_description: { key: 'platform', value: (s) => (s.platform?.label ? s.platform.description : null) },
  launch_platform_label: { key: 'launch_platform', value: (s) => s.launch_platform?.label || null },
  launch_type: {
    key: 'launch_platform',
    value: (s) => (s.launch_platform?.label ? s.launch_platform.launch_type : null),
  },
  collector: {
    key: 'collectors',
    value: (s) =>
      batchCollectors(s)
        ?.map((c) => c.individual?.label)
        .join('; ') ?? null,
  },
  collector_detail: { key: 'collectors', value: collectorDetails },
  related_resource_uri: { key: 'related_resources', value: (s) => onlyRelatedResource(s)?.uri ?? null },
  related_resource_description: {
    key: 'related_resources',
    value: (s) => onlyRelatedResource(s)?.description ?? null,
  },
};

/** The source of a batch field's cell: the CSV column of the same key, or a flattened nested field. */
function batchColumnSource(key: string): Omit<SampleColumn, 'header'> | undefined {
  return CSV_COLUMN_BY_KEY.get(key) ?? FLATTENED_BATCH_COLUMNS[key];
}

/** Batch fields the export cannot fill (none today; a spec fails when a new batch field lacks a source). */
export const UNEXPORTED_BATCH_FIELDS: string[] = BATCH_FIELDS.filter((field) => !batchColumnSource(field.key)).map(
  (field) => field.key,
);

/** The xlsx `Samples` sheet: batch template labels and order, so the upload reads every column. */
export const XLSX_SAMPLES_COLUMNS: readonly SampleColumn[] = BATCH_FIELDS.flatMap((field) => {
  const source = batchColumnSource(field.key);
  return source ? [{ key: source.key, header: field.label, value: source.value }] : [];
});

const BATCH_KEYS = new Set(BATCH_FIELDS.map((field) => field.key));

/** The xlsx `Details` sheet: the IGSN, then every CSV column the batch format has no column for. */
export const XLSX_DETAILS_COLUMNS: readonly SampleColumn[] = [
  CSV_COLUMN_BY_KEY.get('igsn') as SampleColumn,
  ...SAMPLE_CSV_COLUMNS.filter((column) => !BATCH_KEYS.has(column.key)),
];
