/**
 * The spreadsheet columns of batch registration: what the template workbook writes, what the
 * upload reads (by label or by key), and what the curation view labels. One catalog, so the
 * three agree.
 */
export type BatchFieldKind = 'text' | 'number' | 'date' | 'list' | 'igsn';

/** Controlled vocabularies offered as dropdowns in the template. */
export type BatchVocabulary =
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

export interface BatchField {
  /** The column's key: a sample body field, or a flattened nested one (`platform_label`). */
  key: string;
  /** Header label in the workbook (matched case-insensitively on upload). */
  label: string;
  kind: BatchFieldKind;
  vocabulary?: BatchVocabulary;
  /** Always in the template, whatever the selection. */
  always?: boolean;
  help: string;
}

export const BATCH_FIELDS: readonly BatchField[] = [
  {
    key: 'object_type',
    label: 'Object Type',
    kind: 'text',
    vocabulary: 'object_type',
    always: true,
    help: 'Object type label, e.g. Core (the most specific that fits)',
  },
  { key: 'name', label: 'Sample Name', kind: 'text', always: true, help: 'Unique within this file' },
  { key: 'igsn', label: 'IGSN', kind: 'igsn', always: true, help: 'Leave empty to mint one' },
  { key: 'parent_sample', label: 'Parent IGSN', kind: 'igsn', help: 'IGSN of the parent sample' },
  { key: 'other_names', label: 'Other Name(s)', kind: 'list', help: 'Separate several with ;' },
  {
    key: 'general_material_type',
    label: 'General Material Type',
    kind: 'text',
    vocabulary: 'material_type',
    help: 'e.g. Rock',
  },
  {
    key: 'material_types',
    label: 'Material Type(s)',
    kind: 'list',
    help: 'Classification, e.g. Igneous>Plutonic; separate with ;',
  },
  { key: 'sample_description', label: 'Sample Description', kind: 'text', help: '' },
  { key: 'purpose', label: 'Purpose', kind: 'text', help: '' },
  { key: 'latitude', label: 'Latitude (WGS84)', kind: 'number', always: true, help: 'Decimal degrees, -90 to 90' },
  { key: 'longitude', label: 'Longitude (WGS84)', kind: 'number', always: true, help: 'Decimal degrees, -180 to 180' },
  { key: 'end_latitude', label: 'Latitude End (WGS84)', kind: 'number', help: '' },
  { key: 'end_longitude', label: 'Longitude End (WGS84)', kind: 'number', help: '' },
  { key: 'elevation', label: 'Elevation', kind: 'number', help: '' },
  { key: 'elevation_end', label: 'Elevation End', kind: 'number', help: '' },
  { key: 'elevation_unit', label: 'Elevation Unit', kind: 'text', vocabulary: 'length_unit', help: '' },
  { key: 'depth_min', label: 'Depth Min', kind: 'number', help: '' },
  { key: 'depth_max', label: 'Depth Max', kind: 'number', help: '' },
  { key: 'depth_unit', label: 'Depth Unit', kind: 'text', vocabulary: 'length_unit', help: '' },
  { key: 'depth_scale', label: 'Depth Scale', kind: 'text', help: '' },
  { key: 'sampling_start_date', label: 'Sampling start date', kind: 'date', help: 'YYYY-MM-DD or ISO 8601 date-time' },
  { key: 'sampling_end_date', label: 'Sampling end date', kind: 'date', help: '' },
  {
    key: 'sampling_date_precision',
    label: 'Sampling date precision',
    kind: 'text',
    vocabulary: 'date_precision',
    help: '',
  },
  { key: 'country', label: 'Country', kind: 'text', vocabulary: 'country', help: 'Country name or ISO code' },
  { key: 'province', label: 'State/Province', kind: 'text', help: '' },
  { key: 'county', label: 'County', kind: 'text', help: '' },
  { key: 'city', label: 'City/Township', kind: 'text', help: '' },
  { key: 'locality', label: 'Locality', kind: 'text', help: '' },
  { key: 'location_description', label: 'Location Description', kind: 'text', help: '' },
  { key: 'location_method', label: 'Location Method', kind: 'text', vocabulary: 'location_method', help: '' },
  { key: 'primary_location_name', label: 'Primary Location Name', kind: 'text', help: '' },
  { key: 'primary_location_type', label: 'Primary Location Type', kind: 'text', help: '' },
  { key: 'field_name', label: 'Field Name', kind: 'text', help: '' },
  { key: 'vertical_datum', label: 'Vertical Datum', kind: 'text', help: '' },
  { key: 'northing', label: 'Northing', kind: 'text', help: '' },
  { key: 'easting', label: 'Easting', kind: 'text', help: '' },
  { key: 'zone', label: 'Zone', kind: 'text', help: '' },
  { key: 'size', label: 'Size', kind: 'text', help: '' },
  { key: 'size_unit', label: 'Size Unit', kind: 'text', help: '' },
  { key: 'numeric_age_min', label: 'Age Min', kind: 'number', help: '' },
  { key: 'numeric_age_max', label: 'Age Max', kind: 'number', help: '' },
  { key: 'numeric_age_unit', label: 'Age Unit', kind: 'text', help: 'e.g. Ma' },
  { key: 'geologic_age_verbatim', label: 'Geological Age', kind: 'text', help: '' },
  { key: 'geologic_unit', label: 'Geological Unit', kind: 'text', help: '' },
  { key: 'sampling_method', label: 'Sampling Method', kind: 'text', vocabulary: 'sampling_method', help: '' },
  { key: 'sampling_method_detail', label: 'Sampling Method Detail', kind: 'text', help: '' },
  { key: 'collector', label: 'Collector', kind: 'text', help: 'Name of the person who collected the sample' },
  { key: 'collector_detail', label: 'Collector Detail', kind: 'text', help: 'Free text about the collector' },
  { key: 'platform_label', label: 'Platform Name', kind: 'text', vocabulary: 'platform', help: '' },
  { key: 'platform_type', label: 'Platform Type', kind: 'text', vocabulary: 'platform_type', help: '' },
  { key: 'platform_description', label: 'Platform Description', kind: 'text', help: '' },
  {
    key: 'launch_platform_label',
    label: 'Launch Platform Name',
    kind: 'text',
    vocabulary: 'launch_platform',
    help: '',
  },
  { key: 'launch_type', label: 'Launch Type', kind: 'text', vocabulary: 'launch_type', help: '' },
  { key: 'launch_label', label: 'Launch ID', kind: 'text', help: '' },
  { key: 'cruise_field_prgrm', label: 'Cruise/Field Program', kind: 'text', help: '' },
  { key: 'current_archive', label: 'Current Archive', kind: 'text', vocabulary: 'archive', help: '' },
  { key: 'current_archive_contact', label: 'Current Archive Contact', kind: 'text', help: '' },
  { key: 'original_archive', label: 'Original Archive', kind: 'text', vocabulary: 'archive', help: '' },
  { key: 'original_archive_contact', label: 'Original Archive Contact', kind: 'text', help: '' },
  { key: 'related_resource_uri', label: 'Related URL', kind: 'text', help: 'A link about the sample' },
  { key: 'related_resource_description', label: 'Related URL Description', kind: 'text', help: '' },
];

const BY_KEY = new Map(BATCH_FIELDS.map((field) => [field.key, field]));
const BY_HEADER = new Map<string, BatchField>();
for (const field of BATCH_FIELDS) {
  BY_HEADER.set(field.label.toLowerCase(), field);
  BY_HEADER.set(field.key.toLowerCase(), field);
}

// The previous system's name for the registry code.
BY_HEADER.set('sesar code', BY_KEY.get('registry_code') as BatchField);
BY_HEADER.set('sesar_code', BY_KEY.get('registry_code') as BatchField);

export function batchFieldByKey(key: string): BatchField | undefined {
  return BY_KEY.get(key);
}

/** The field a header cell names (its label or its key, any case and spacing). */
export function batchFieldByHeader(header: string): BatchField | undefined {
  return BY_HEADER.get(header.trim().replace(/\s+/g, ' ').toLowerCase());
}

/** The columns of a template: the fields always present, then the selected ones, in catalog order. */
export function templateColumns(selected: readonly string[] | null | undefined): BatchField[] {
  const chosen = new Set(selected ?? []);
  return BATCH_FIELDS.filter((field) => field.always || chosen.has(field.key));
}
