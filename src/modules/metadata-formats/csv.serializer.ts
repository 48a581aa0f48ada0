import {
  SampleArchive,
  SampleCollector,
  SampleDto,
  SampleLaunchPlatform,
  SamplePlatform,
  SampleRelatedResource,
} from '../samples';
import { sampleFieldLabel } from '../samples';
import { present, presentAll } from './sample-metadata';

/** One spreadsheet cell: text, a number, a boolean, or empty. */
export type CellValue = string | number | boolean | null;

export interface SampleColumn<K extends keyof SampleDto = keyof SampleDto> {
  /** The SampleDto field the column shows (also accepted as a header by spreadsheet readers). */
  key: K;
  /** Column label in the header row. */
  header: string;
  /** The cell of one sample, before formula escaping: nested values flattened to text. */
  value: (sample: SampleDto) => CellValue;
}

/** Lists in one cell are joined with `; ` (the batch template's "Other Name(s)" convention). */
const LIST_SEPARATOR = '; ';

function list(values: readonly string[]): string | null {
  const kept = presentAll(values);
  return kept.length ? kept.join(LIST_SEPARATOR) : null;
}

/** `label (detail, …)`, or the label alone. */
function labelled(label: string | null | undefined, details: (string | null | undefined)[]): string | null {
  const name = present(label);
  const kept = presentAll(details);
  if (!name) return kept.length ? kept.join(', ') : null;
  return kept.length ? `${name} (${kept.join(', ')})` : name;
}

/** `Marie Tharp, Lamont-Doherty Earth Observatory (Chief scientist)`: person, institution, description. */
function collectorText(collector: SampleCollector): string | null {
  const person = collector.individual;
  const personName = present(person?.label) ?? (presentAll([person?.fname, person?.lname]).join(' ') || null);
  const who = presentAll([personName, collector.institution?.label]).join(', ');
  return labelled(who, [collector.description]);
}

function relatedResourceText(resource: SampleRelatedResource): string {
  return labelled(resource.uri, [resource.relation_type, resource.description]) ?? resource.uri;
}

const platformText = (platform: SamplePlatform | null) => labelled(platform?.label, [platform?.platform_type]);
const launchPlatformText = (platform: SampleLaunchPlatform | null) =>
  labelled(platform?.label, [platform?.launch_type]);
const archiveText = (archive: SampleArchive | null) => present(archive?.label);

/** A column labelled as the field catalogue labels it. */
function column<K extends keyof SampleDto>(key: K, flatten?: (value: SampleDto[K]) => CellValue): SampleColumn<K> {
  return {
    key,
    header: sampleFieldLabel(key),
    value: flatten ? (sample) => flatten(sample[key]) : (sample) => sample[key] as CellValue,
  };
}

/**
 * Every SampleDto field, one column each, in the order a reader scans a sample: identity, what it
 * is, where, when, who, then record keeping. Exports (CSV and xlsx) use these columns.
 */
export const SAMPLE_CSV_COLUMNS = [
  column('igsn'),
  column('name'),
  column('external_sample_id'),
  column('registry_code'),
  column('object_type'),
  column('object_type_path'),
  column('legacy_sample_type'),
  column('parent_sample'),
  column('other_names', list),
  column('general_material_type'),
  column('material_types', list),
  column('field_name'),
  column('sample_description'),
  column('purpose'),
  column('size'),
  column('size_unit'),
  column('geologic_age_verbatim'),
  column('geologic_unit'),
  column('numeric_age_min'),
  column('numeric_age_max'),
  column('numeric_age_unit'),
  column('external_parent_name'),
  column('external_parent_object_type'),
  column('latitude'),
  column('longitude'),
  column('end_latitude'),
  column('end_longitude'),
  column('location_method'),
  column('northing'),
  column('easting'),
  column('zone'),
  column('elevation'),
  column('elevation_end'),
  column('elevation_unit'),
  column('vertical_datum'),
  column('depth_min'),
  column('depth_max'),
  column('depth_unit'),
  column('depth_scale'),
  column('country'),
  column('province'),
  column('county'),
  column('city'),
  column('locality'),
  column('location_description'),
  column('primary_location_name'),
  column('primary_location_type'),
  column('sampling_method'),
  column('sampling_method_detail'),
  column('sampling_start_date'),
  column('sampling_end_date'),
  column('sampling_date_precision'),
  column('collectors', (collectors) => list(collectors.map((c) => collectorText(c) ?? ''))),
  column('cruise_field_prgrm'),
  column('platform', platformText),
  column('launch_platform', launchPlatformText),
  column('launch_label'),
  column('current_archive', archiveText),
  column('current_archive_contact'),
  column('original_archive', archiveText),
  column('original_archive_contact'),
  column('related_resources', (resources) => list(resources.map(relatedResourceText))),
  column('metadata_store_status'),
  column('is_draft'),
  column('publish_date'),
  column('is_deactivated'),
  column('deactivate_reason'),
  column('user_owner'),
  column('team_owner'),
  column('batch_id'),
  column('id'),
  column('created_at'),
  column('updated_at'),
  column('can_edit'),
  column('doi', (doi) => doi.state),
  // SESAR2's names (issue 20), after every column older readers know.
  column('sample_id'),
  column('registration_date'),
  column('last_update_date'),
  column('can_deactivate'),
] as const satisfies readonly SampleColumn[];

// Compile-time guard: a SampleDto field without a column fails the build here.
type UncoveredField = Exclude<keyof SampleDto, (typeof SAMPLE_CSV_COLUMNS)[number]['key']>;
const everyFieldHasAColumn: [UncoveredField] extends [never] ? true : UncoveredField = true;
void everyFieldHasAColumn;

/** Characters that make a spreadsheet read a cell as a formula (OWASP CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number, optionally signed, with an optional exponent: `-12.5`, `+3`, `1e-5`. */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Formula-injection escaping for spreadsheets (CSV and xlsx): text that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return gets a leading `'`, so Excel, LibreOffice and Google
 * Sheets show it as text instead of evaluating it. Plain numbers are left alone — numbers
 * (`-12.5`) and text that is exactly a number (`"-12.5"`, `"+3"`) cannot run anything and must
 * stay numbers. Non-text values pass through unchanged.
 */
export function formulaSafe<T extends CellValue>(value: T): T | string {
  if (typeof value !== 'string') return value;
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** One CSV field (RFC 4180): formula-safe, quoted when it holds a quote, comma, CR or LF, quotes doubled. */
export function csvField(value: CellValue): string {
  const safe = formulaSafe(value);
  const text = safe === null ? '' : String(safe);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const CSV_LINE_END = '\r\n';
/** Prepend to a CSV file meant to be opened by double-click in Excel, which otherwise guesses a legacy encoding. */
export const UTF8_BOM = '\uFEFF';

/** The raw cells of one sample (formula escaping is the writer's job: `csvField` or `formulaSafe`). */
export function sampleCells(sample: SampleDto, columns: readonly SampleColumn[] = SAMPLE_CSV_COLUMNS): CellValue[] {
  return columns.map((col) => col.value(sample));
}

export function csvHeader(columns: readonly SampleColumn[] = SAMPLE_CSV_COLUMNS): string {
  return columns.map((col) => csvField(col.header)).join(',') + CSV_LINE_END;
}

export function csvRow(sample: SampleDto, columns: readonly SampleColumn[] = SAMPLE_CSV_COLUMNS): string {
  return sampleCells(sample, columns).map(csvField).join(',') + CSV_LINE_END;
}

/** Samples as CSV (RFC 4180): UTF-8 text, header row, one row per sample, CRLF after every row. */
export function toCsv(samples: readonly SampleDto[], columns: readonly SampleColumn[] = SAMPLE_CSV_COLUMNS): string {
  return csvHeader(columns) + samples.map((sample) => csvRow(sample, columns)).join('');
}
