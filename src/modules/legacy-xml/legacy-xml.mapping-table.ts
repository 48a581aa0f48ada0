/**
 * How the mapper treats an element:
 * - `text`: whitespace-collapsed text at the JSON path;
 * - `number`: a JSON number when the text is a decimal number, otherwise the text (validation rejects it);
 * - `lowercase`: text lower-cased (the old schema took any case, the JSON enum is lower case);
 * - `object-type`: `sample_subtype` wins over `sample_type`; the pair goes through the sample-type
 *   table (legacy-sample-types.ts) and is kept as the sample's legacy sample type;
 * - `sample-type-name`: a SESAR 1.0 sample type becomes its object type through that table, any other
 *   value is kept as sent;
 * - `registry-code`: used only when the document has no registry code of its own;
 * - `description`: joined, in a fixed order, into `sample_description` or `location_description`;
 * - `classification`: one `material_types` label, `{material}>` prefix stripped;
 * - `collector`, `collector-detail`: paired into `collectors[]`;
 * - `other-name`: entries of `other_names`;
 * - `related-resource`: entries of `related_resources`;
 * - `ignored`: dropped;
 * - `refused`: the JSON sample record has no field for it, so a sample carrying it is refused
 *   (naming the element) rather than stored without it.
 */
export type LegacyXmlRule =
  | 'text'
  | 'number'
  | 'lowercase'
  | 'object-type'
  | 'sample-type-name'
  | 'registry-code'
  | 'description'
  | 'classification'
  | 'collector'
  | 'collector-detail'
  | 'other-name'
  | 'related-resource'
  | 'ignored'
  | 'refused';

export interface LegacyXmlMappingRow {
  /** Element below `<sample>`; `a/b` for an element inside another one. */
  readonly xml: string;
  /** Field of the JSON sample body (`platform.label`, `collectors[].description`), null when dropped. */
  readonly json: string | null;
  readonly rule: LegacyXmlRule;
  /** True when something the client sent does not survive the trip into the JSON record. */
  readonly lossy: boolean;
  readonly note: string;
}

function row(xml: string, json: string | null, rule: LegacyXmlRule, note = '', lossy = false): LegacyXmlMappingRow {
  return { xml, json, rule, lossy, note };
}

/** Same name on both sides, plain text. */
function same(xml: string, note = ''): LegacyXmlMappingRow {
  return row(xml, xml, 'text', note);
}

const NUMBER_NOTE = 'Decimal text becomes a JSON number.';
const TEXT_COORDINATE_NOTE = 'Kept as text: the JSON field is a string (the old schema typed it as a decimal).';

/** Same name on both sides, converted to a JSON number. */
function sameNumber(xml: string): LegacyXmlMappingRow {
  return row(xml, xml, 'number', NUMBER_NOTE);
}

/**
 * Every element of the old sample schemas (and the two parent fields the specification adds), in
 * schema order. The mapper dispatches on the rows without `/`; rows with `/` describe what happens
 * inside a container element. Elements not listed here keep their name and their text.
 */
export const LEGACY_XML_MAPPING: readonly LegacyXmlMappingRow[] = [
  row(
    'user_code',
    'registry_code',
    'registry-code',
    'Used only when the sample has no registry_code (or sesar_code) element; otherwise dropped.',
  ),
  row(
    'sample_type',
    'object_type',
    'object-type',
    'Through the sample-type table when sample_subtype is absent or empty; kept in legacy_sample_type.',
  ),
  row(
    'sample_subtype',
    'object_type',
    'object-type',
    'Wins over sample_type: the pair, else the subtype, through the sample-type table; kept in legacy_sample_type.',
  ),
  same('name'),
  row('material', 'general_material_type', 'text', 'Also the prefix stripped from the start of classification.'),
  same('igsn', 'Kept as sent (bare suffix or DOI form); an update finds the sample by it.'),
  row('parent_igsn', 'parent_sample', 'text'),
  row('parent_name', 'external_parent_name', 'text'),
  row(
    'parent_sample_type',
    'external_parent_object_type',
    'sample-type-name',
    'A SESAR 1.0 sample type becomes its object type through the sample-type table; other values are kept.',
  ),
  row('is_private', null, 'ignored', 'Visibility follows publish_date only.', true),
  same('publish_date'),
  row(
    'classification',
    'material_types[]',
    'classification',
    'One label, never split. The nested element form becomes `A>B>C` (a leaf named after its parent plus ' +
      '`Type` only holds the value). A leading `{material}>` is removed.',
    true,
  ),
  row(
    'classification_comment',
    'sample_description',
    'description',
    'Appended after description and sample_comment.',
    true,
  ),
  same('field_name'),
  row('description', 'sample_description', 'description', 'First part of sample_description.'),
  row('age_min', 'numeric_age_min', 'number', NUMBER_NOTE),
  row('age_max', 'numeric_age_max', 'number', NUMBER_NOTE),
  row('age_unit', 'numeric_age_unit', 'text'),
  row('geological_age', 'geologic_age_verbatim', 'text'),
  row('geological_unit', 'geologic_unit', 'text'),
  row('collection_method', 'sampling_method', 'text'),
  row('collection_method_descr', 'sampling_method_detail', 'text'),
  same('size', 'Free text in the old schema (e.g. "3 cm"), so not converted.'),
  same('size_unit'),
  row(
    'sample_comment',
    'sample_description',
    'description',
    'Appended after description, before classification_comment.',
    true,
  ),
  same('purpose'),
  sameNumber('latitude'),
  sameNumber('longitude'),
  row('latitude_end', 'end_latitude', 'number', NUMBER_NOTE),
  row('longitude_end', 'end_longitude', 'number', NUMBER_NOTE),
  sameNumber('elevation'),
  sameNumber('elevation_end'),
  row(
    'elevation_unit',
    'elevation_unit',
    'lowercase',
    'Lower-cased: the old schema accepted any letter case, the JSON enum is lower case.',
  ),
  same('vertical_datum'),
  same('northing', TEXT_COORDINATE_NOTE),
  same('easting', TEXT_COORDINATE_NOTE),
  same('zone'),
  row(
    'navigation_type',
    'location_method',
    'text',
    'Must name an entry of the location-method vocabulary; the old navigation-type table is not consulted.',
  ),
  same('primary_location_type'),
  same('primary_location_name'),
  row('location_description', 'location_description', 'description', 'First part of location_description.'),
  same('locality'),
  row(
    'locality_description',
    'location_description',
    'description',
    'Appended after location_description (the sample record has no field of its own for it).',
    true,
  ),
  same('country', 'Kept as sent; the JSON API expects an ISO 3166 alpha-2 code.'),
  same('province'),
  same('county'),
  same('city'),
  same('cruise_field_prgrm'),
  row('platform_type', 'platform.platform_type', 'text'),
  row('platform_name', 'platform.label', 'text'),
  row('platform_descr', 'platform.description', 'text'),
  row('launch_platform_name', 'launch_platform.label', 'text'),
  row('launch_id', 'launch_label', 'text'),
  row('launch_type_name', 'launch_platform.launch_type', 'text'),
  row('collector', 'collectors[].individual.label', 'collector', 'One collector per element, in document order.'),
  row(
    'collector_detail',
    'collectors[].description',
    'collector-detail',
    'Free text on the collector in the same position; never parsed into ORCID or institution.',
    true,
  ),
  row('collection_start_date', 'sampling_start_date', 'text'),
  row('collection_end_date', 'sampling_end_date', 'text'),
  row(
    'collection_date_precision',
    'sampling_date_precision',
    'lowercase',
    'Lower-cased: the old schema accepted any letter case (`Year`), the JSON enum is lower case.',
  ),
  row('current_archive', 'current_archive.label', 'text'),
  same('current_archive_contact'),
  row('original_archive', 'original_archive.label', 'text'),
  same('original_archive_contact'),
  sameNumber('depth_min'),
  sameNumber('depth_max'),
  same('depth_scale'),
  row('sample_other_names', 'other_names', 'other-name', 'Container: each sample_other_name inside is one entry.'),
  row('sample_other_name', 'other_names[]', 'other-name', 'Also accepted repeated directly under `<sample>`.'),
  row('external_urls', 'related_resources', 'related-resource', 'Container of external_url elements.'),
  row(
    'external_url',
    'related_resources[]',
    'related-resource',
    'One `{uri, description, relation_type: null}` per element; also accepted without the container. ' +
      'File attachments and any other child are ignored.',
    true,
  ),
  row('external_url/url', 'related_resources[].uri', 'related-resource', 'Stored as a plain URL.'),
  row(
    'external_url/description',
    'related_resources[].description',
    'related-resource',
    'url_description is read the same way; null when absent.',
  ),
  row('external_url/url_type', null, 'ignored', 'DOI or regular: the link is stored as a plain URL either way.', true),
  row(
    'external_url/old_url',
    null,
    'ignored',
    'Update documents used it to replace one link; the update replaces the whole related_resources list instead.',
    true,
  ),
];
