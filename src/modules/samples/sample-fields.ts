// Over 400 lines on purpose: the catalogue is one table of data (a row per sample field with its label,
// type, vocabulary and column), read top to bottom; splitting it would scatter the one list a new field joins.
import { aliasesOfField } from './sample-field-aliases';

/**
 * The field catalogue: every column a sample has in a spreadsheet — the batch template, the batch
 * upload, the CSV and xlsx exports — with its one label, its type, its vocabulary and the other
 * headers an upload accepts for it. Keys are the JSON API's field names (nested objects the batch
 * workbook flattens get a key of their own, such as `platform_label`). Served as
 * `GET /api/batch-templates/fields/`; nothing else spells a column label.
 *
 * A field with `column` is a plain field: stored in the `sample` column of the same name and copied
 * as is into the sample JSON (dates as ISO 8601). Its row here alone puts it in the detail
 * statement's SELECT list (SAMPLE_DETAIL), in SampleRow and the row→SampleDto copy (SampleMapper),
 * and in the flat columns curation reads back (sample-flat-columns.ts). Adding a plain field takes:
 * - its row here, with `column`;
 * - the migration that adds the column, and its property in the Sample entity;
 * - its validator in the write DTO (dto/sample-write.dto.ts) and its pair in the write resolver's
 *   SCALAR_FIELDS (write/sample-field-resolver.ts), which the catalogue does not drive yet;
 * - its property in SampleDto, for the OpenAPI document (its place there is its place in the JSON
 *   body; the build fails when its type disagrees with the catalogue's), and its place among the
 *   CSV columns (csv.serializer.ts; the build fails until it has one).
 * Fields with joins or shapes of their own (object type, parent, collectors, platforms, archives,
 * related resources, store status, record keeping, the DOI) have no `column`: each is written out
 * once in SAMPLE_DETAIL and once in SampleMapper.
 */
export type SampleFieldType = 'text' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'list' | 'igsn';

/** Reference lists a column's values come from. */
export type SampleVocabulary =
  | 'object_type'
  | 'material_type'
  | 'country'
  | 'location_method'
  | 'sampling_method'
  | 'length_unit'
  | 'date_precision'
  | 'platform_type'
  | 'launch_type'
  | 'platform'
  | 'launch_platform'
  | 'archive';

/** Where a vocabulary can be read (null: a closed list documented in the OpenAPI enum, or free platform names). */
export const VOCABULARY_ENDPOINTS: Record<SampleVocabulary, string | null> = {
  object_type: '/api/object-types/',
  material_type: '/api/material-types/',
  country: '/api/countries/',
  location_method: '/api/location-methods/',
  sampling_method: '/api/sampling-methods/',
  length_unit: null,
  date_precision: null,
  platform_type: '/api/platform-types/',
  launch_type: '/api/launch-types/',
  platform: null,
  launch_platform: null,
  archive: '/api/archives/',
};

export interface SampleField {
  /** The JSON API's field name, or the key of a flattened nested field (`platform_label`). */
  key: string;
  /** The column's header in every spreadsheet the registry writes. */
  label: string;
  type: SampleFieldType;
  vocabulary?: SampleVocabulary;
  /** Other headers a batch upload accepts for this column (earlier labels, the previous system's names). */
  aliases?: readonly string[];
  /** A column of the batch workbook: offered by templates, read by uploads, the xlsx export's Samples sheet. */
  batch?: boolean;
  /** In every template, whatever the selection (batch columns only). */
  always?: boolean;
  /** What the column expects, shown as the template header's note (batch columns only). */
  help?: string;
  /** A plain field (see above): whether its `sample` column may be NULL. */
  column?: SampleColumnNullability;
}

export type SampleColumnNullability = 'nullable' | 'not null';

/** Batch columns first, in the order a template lays them out; then the columns only exports show. */
const CATALOGUE = [
  {
    key: 'object_type',
    label: 'Object Type',
    type: 'text',
    vocabulary: 'object_type',
    batch: true,
    always: true,
    help: 'Object type label, e.g. Core (the most specific that fits)',
  },
  {
    key: 'name',
    label: 'Sample Name',
    type: 'text',
    batch: true,
    always: true,
    help: 'Unique within this file',
    column: 'not null',
  },
  {
    key: 'igsn',
    label: 'IGSN',
    type: 'igsn',
    batch: true,
    always: true,
    help: 'Leave empty to mint one; give a reserved IGSN to describe that sample',
  },
  {
    key: 'external_sample_id',
    label: 'External Sample ID',
    type: 'text',
    batch: true,
    help: 'Your own id for the sample: unique among your samples and within this file',
    column: 'nullable',
  },
  {
    key: 'registry_code',
    label: 'Registry Code',
    type: 'text',
    aliases: ['SESAR Code', 'sesar_code'],
    batch: true,
    help: 'Registry code to register under; when empty, the one of the Metadata sheet or of the upload',
    column: 'not null',
  },
  {
    key: 'parent_sample',
    label: 'Parent IGSN',
    type: 'igsn',
    batch: true,
    help: 'IGSN of the parent sample: a registered one, or one of a row of this file',
  },
  {
    key: 'other_names',
    label: 'Other Name(s)',
    type: 'list',
    aliases: ['Other Names'],
    batch: true,
    help: 'Separate several with ;',
    column: 'not null',
  },
  {
    key: 'general_material_type',
    label: 'General Material Type',
    type: 'text',
    vocabulary: 'material_type',
    batch: true,
    help: 'e.g. Rock',
    column: 'nullable',
  },
  {
    key: 'material_types',
    label: 'Material Type(s)',
    type: 'list',
    aliases: ['Material Types'],
    batch: true,
    help: 'Classification, e.g. Igneous>Plutonic; separate with ;',
    column: 'not null',
  },
  { key: 'sample_description', label: 'Sample Description', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'purpose', label: 'Purpose', type: 'text', batch: true, help: '', column: 'nullable' },
  {
    key: 'latitude',
    label: 'Latitude (WGS84)',
    type: 'number',
    aliases: ['Latitude'],
    batch: true,
    always: true,
    help: 'Decimal degrees, -90 to 90',
    column: 'nullable',
  },
  {
    key: 'longitude',
    label: 'Longitude (WGS84)',
    type: 'number',
    aliases: ['Longitude'],
    batch: true,
    always: true,
    help: 'Decimal degrees, -180 to 180',
    column: 'nullable',
  },
  { key: 'end_latitude', label: 'Latitude End (WGS84)', type: 'number', batch: true, help: '', column: 'nullable' },
  { key: 'end_longitude', label: 'Longitude End (WGS84)', type: 'number', batch: true, help: '', column: 'nullable' },
  { key: 'elevation', label: 'Elevation', type: 'number', batch: true, help: '', column: 'nullable' },
  { key: 'elevation_end', label: 'Elevation End', type: 'number', batch: true, help: '', column: 'nullable' },
  {
    key: 'elevation_unit',
    label: 'Elevation Unit',
    type: 'text',
    vocabulary: 'length_unit',
    batch: true,
    help: '',
    column: 'nullable',
  },
  { key: 'depth_min', label: 'Depth Min', type: 'number', batch: true, help: '', column: 'nullable' },
  { key: 'depth_max', label: 'Depth Max', type: 'number', batch: true, help: '', column: 'nullable' },
  {
    key: 'depth_unit',
    label: 'Depth Unit',
    type: 'text',
    vocabulary: 'length_unit',
    batch: true,
    help: '',
    column: 'nullable',
  },
  { key: 'depth_scale', label: 'Depth Scale', type: 'text', batch: true, help: '', column: 'nullable' },
  {
    key: 'sampling_start_date',
    label: 'Sampling Start Date',
    type: 'date',
    batch: true,
    help: 'YYYY-MM-DD or ISO 8601 date-time',
    column: 'nullable',
  },
  { key: 'sampling_end_date', label: 'Sampling End Date', type: 'date', batch: true, help: '', column: 'nullable' },
  {
    key: 'sampling_date_precision',
    label: 'Sampling Date Precision',
    type: 'text',
    vocabulary: 'date_precision',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'country',
    label: 'Country',
    type: 'text',
    vocabulary: 'country',
    batch: true,
    help: 'Country name or ISO code',
    column: 'nullable',
  },
  {
    key: 'province',
    label: 'State/Province',
    type: 'text',
    aliases: ['Province/State', 'Province'],
    batch: true,
    help: '',
    column: 'nullable',
  },
  { key: 'county', label: 'County', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'city', label: 'City/Township', type: 'text', aliases: ['City'], batch: true, help: '', column: 'nullable' },
  { key: 'locality', label: 'Locality', type: 'text', batch: true, help: '', column: 'nullable' },
  {
    key: 'location_description',
    label: 'Location Description',
    type: 'text',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'location_method',
    label: 'Location Method',
    type: 'text',
    vocabulary: 'location_method',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'primary_location_name',
    label: 'Primary Location Name',
    type: 'text',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'primary_location_type',
    label: 'Primary Location Type',
    type: 'text',
    batch: true,
    help: '',
    column: 'nullable',
  },
  { key: 'field_name', label: 'Field Name', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'vertical_datum', label: 'Vertical Datum', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'northing', label: 'Northing', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'easting', label: 'Easting', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'zone', label: 'Zone', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'size', label: 'Size', type: 'text', batch: true, help: '', column: 'nullable' },
  { key: 'size_unit', label: 'Size Unit', type: 'text', batch: true, help: '', column: 'nullable' },
  {
    key: 'numeric_age_min',
    label: 'Numeric Age Min',
    type: 'number',
    aliases: ['Age Min'],
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'numeric_age_max',
    label: 'Numeric Age Max',
    type: 'number',
    aliases: ['Age Max'],
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'numeric_age_unit',
    label: 'Numeric Age Unit',
    type: 'text',
    aliases: ['Age Unit'],
    batch: true,
    help: 'e.g. Ma',
    column: 'nullable',
  },
  {
    key: 'geologic_age_verbatim',
    label: 'Geologic Age',
    type: 'text',
    aliases: ['Geological Age'],
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'geologic_unit',
    label: 'Geologic Unit',
    type: 'text',
    aliases: ['Geological Unit'],
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'sampling_method',
    label: 'Sampling Method',
    type: 'text',
    vocabulary: 'sampling_method',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'sampling_method_detail',
    label: 'Sampling Method Detail',
    type: 'text',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'collector',
    label: 'Collector',
    type: 'list',
    aliases: ['Collector(s)', 'Collector Name'],
    batch: true,
    help: 'Name of the person who collected the sample; separate several with ;',
  },
  {
    key: 'collector_detail',
    label: 'Collector Detail',
    type: 'text',
    batch: true,
    help: 'Free text about the collector; with several collectors, one per collector separated by ;',
  },
  {
    key: 'platform_label',
    label: 'Platform Name',
    type: 'text',
    vocabulary: 'platform',
    batch: true,
    help: '',
  },
  {
    key: 'platform_type',
    label: 'Platform Type',
    type: 'text',
    vocabulary: 'platform_type',
    batch: true,
    help: '',
  },
  { key: 'platform_description', label: 'Platform Description', type: 'text', batch: true, help: '' },
  {
    key: 'launch_platform_label',
    label: 'Launch Platform Name',
    type: 'text',
    vocabulary: 'launch_platform',
    batch: true,
    help: '',
  },
  { key: 'launch_type', label: 'Launch Type', type: 'text', vocabulary: 'launch_type', batch: true, help: '' },
  {
    key: 'launch_label',
    label: 'Launch ID',
    type: 'text',
    aliases: ['Launch Label'],
    batch: true,
    help: '',
    column: 'nullable',
  },
  { key: 'cruise_field_prgrm', label: 'Cruise/Field Program', type: 'text', batch: true, help: '', column: 'nullable' },
  {
    key: 'current_archive',
    label: 'Current Archive',
    type: 'text',
    vocabulary: 'archive',
    batch: true,
    help: '',
  },
  {
    key: 'current_archive_contact',
    label: 'Current Archive Contact',
    type: 'text',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'original_archive',
    label: 'Original Archive',
    type: 'text',
    vocabulary: 'archive',
    batch: true,
    help: '',
  },
  {
    key: 'original_archive_contact',
    label: 'Original Archive Contact',
    type: 'text',
    batch: true,
    help: '',
    column: 'nullable',
  },
  {
    key: 'related_resource_uri',
    label: 'Related URL',
    type: 'text',
    batch: true,
    help: 'A link about the sample',
  },
  { key: 'related_resource_description', label: 'Related URL Description', type: 'text', batch: true, help: '' },
  // Exported, not uploaded: read-only fields and nested lists shown whole.
  { key: 'object_type_path', label: 'Object Type Path', type: 'text', vocabulary: 'object_type' },
  { key: 'legacy_sample_type', label: 'Legacy Sample Type', type: 'text', column: 'nullable' },
  { key: 'external_parent_name', label: 'External Parent Name', type: 'text', column: 'nullable' },
  { key: 'external_parent_object_type', label: 'External Parent Object Type', type: 'text', column: 'nullable' },
  { key: 'collectors', label: 'Collectors', type: 'list' },
  { key: 'platform', label: 'Platform', type: 'text', vocabulary: 'platform' },
  { key: 'launch_platform', label: 'Launch Platform', type: 'text', vocabulary: 'launch_platform' },
  { key: 'related_resources', label: 'Related Resources', type: 'list' },
  {
    key: 'metadata_store_status',
    label: 'Metadata Store Status',
    type: 'text',
    help: 'reserved (an IGSN minted before fieldwork), draft, pending-review or published',
  },
  { key: 'is_draft', label: 'Draft', type: 'boolean' },
  { key: 'publish_date', label: 'Publish Date', type: 'datetime' },
  { key: 'is_deactivated', label: 'Deactivated', type: 'boolean', column: 'not null' },
  { key: 'deactivate_reason', label: 'Deactivate Reason', type: 'text', column: 'nullable' },
  { key: 'user_owner', label: 'User Owner ID', type: 'integer' },
  { key: 'team_owner', label: 'Team Owner ID', type: 'integer' },
  { key: 'batch_id', label: 'Batch ID', type: 'integer', column: 'nullable' },
  { key: 'id', label: 'ID', type: 'integer' },
  { key: 'created_at', label: 'Created At', type: 'datetime' },
  { key: 'updated_at', label: 'Updated At', type: 'datetime' },
  { key: 'can_edit', label: 'Can Edit', type: 'boolean' },
  { key: 'doi', label: 'DOI Registration', type: 'text' },
  // SESAR2's names for id, created_at, updated_at and the deactivation permission (issue 20).
  { key: 'sample_id', label: 'Sample ID', type: 'integer' },
  { key: 'registration_date', label: 'Registration Date', type: 'datetime' },
  { key: 'last_update_date', label: 'Last Update Date', type: 'datetime' },
  { key: 'can_deactivate', label: 'Can Deactivate', type: 'boolean' },
] as const satisfies readonly SampleField[];

/** The catalogue, each field's aliases completed with SESAR2's JSON names for it (sample-field-aliases.ts). */
export const SAMPLE_FIELDS: readonly SampleField[] = CATALOGUE.map((field: SampleField): SampleField => {
  const sesar2 = aliasesOfField(field.key);
  return sesar2.length ? { ...field, aliases: [...(field.aliases ?? []), ...sesar2] } : field;
});

/** A plain field of the catalogue (one with `column`), by its literal key. */
export type PlainSampleField = Extract<(typeof CATALOGUE)[number], { column: SampleColumnNullability }>;
export type PlainSampleKey = PlainSampleField['key'];

type StoredValue<T extends SampleFieldType> = T extends 'number' | 'integer'
  ? number
  : T extends 'list'
    ? string[]
    : T extends 'boolean'
      ? boolean
      : T extends 'date' | 'datetime'
        ? Date
        : string;
type JsonValue<T extends SampleFieldType> = T extends 'date' | 'datetime' ? string : StoredValue<T>;
type Nullable<V, C extends SampleColumnNullability> = C extends 'nullable' ? V | null : V;

/** The plain fields of a row of the detail statement, typed from the catalogue. */
export type PlainSampleRow = {
  [F in PlainSampleField as F['key']]: Nullable<StoredValue<F['type']>, F['column']>;
};

/** The plain fields of the sample JSON, typed from the catalogue. */
export type PlainSampleJson = {
  [F in PlainSampleField as F['key']]: Nullable<JsonValue<F['type']>, F['column']>;
};

/** The plain fields, in catalogue order. */
export const PLAIN_SAMPLE_FIELDS = SAMPLE_FIELDS.filter(
  (field): field is SampleField & { key: PlainSampleKey; column: SampleColumnNullability } =>
    field.column !== undefined,
);

const FIELD_BY_KEY = new Map(SAMPLE_FIELDS.map((field) => [field.key, field]));

export function sampleFieldByKey(key: string): SampleField | undefined {
  return FIELD_BY_KEY.get(key);
}

/** The catalogue's label of a column (a key missing from the catalogue is a programming error). */
export function sampleFieldLabel(key: string): string {
  const field = FIELD_BY_KEY.get(key);
  if (!field) throw new Error(`The field catalogue has no column ${key}.`);
  return field.label;
}

/** A header as uploads compare it: any case, spacing collapsed. */
export function normalizedHeader(header: string): string {
  return header.trim().replace(/\s+/g, ' ').toLowerCase();
}
