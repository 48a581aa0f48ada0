import { EXACT_COUNT_LIMIT } from '../sample-counts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SampleDoiStatus } from './sample-doi-status.dto';
import { DEACTIVATE_REASONS, LENGTH_UNITS, RelatedResource, STORE_STATUSES } from '../sample.entity';

export class SampleCollectorIndividual {
  @ApiProperty({ example: 7 })
  id: number;
  @ApiProperty({ nullable: true, type: String, example: 'Marie Tharp' })
  label: string | null;
  @ApiProperty({ nullable: true, type: String })
  fname: string | null;
  @ApiProperty({ nullable: true, type: String })
  lname: string | null;
  @ApiProperty({ nullable: true, type: String })
  individual_uri: string | null;
}

export class SampleCollectorInstitution {
  @ApiProperty({ example: 3 })
  id: number;
  @ApiProperty({ nullable: true, type: String, example: 'Lamont-Doherty Earth Observatory' })
  label: string | null;
  @ApiProperty({ nullable: true, type: String })
  ror: string | null;
}

export class SampleCollector {
  @ApiProperty({ example: 12 })
  id: number;
  @ApiProperty({ type: SampleCollectorIndividual, nullable: true })
  individual: SampleCollectorIndividual | null;
  @ApiProperty({ type: SampleCollectorInstitution, nullable: true })
  institution: SampleCollectorInstitution | null;
  @ApiProperty({ nullable: true, type: String, example: 'Chief scientist' })
  description: string | null;
}

export class SamplePlatform {
  @ApiProperty({ example: 4 })
  id: number;
  @ApiProperty({ example: 'R/V Atlantis' })
  label: string;
  @ApiProperty({ nullable: true, type: String, example: 'Ship' })
  platform_type: string | null;
  @ApiProperty({ nullable: true, type: String })
  description: string | null;
}

export class SampleLaunchPlatform {
  @ApiProperty({ example: 2 })
  id: number;
  @ApiProperty({ example: 'Alvin' })
  label: string;
  @ApiProperty({ nullable: true, type: String, example: 'HOV' })
  launch_type: string | null;
}

export class SampleArchive {
  @ApiProperty({ example: 5 })
  id: number;
  @ApiProperty({ example: 'Lamont-Doherty Core Repository' })
  label: string;
}

export class SampleRelatedResource implements RelatedResource {
  /** Set for a related resource object (GET /api/related-resources/{id}/); absent for an inline link. */
  @ApiPropertyOptional({ type: 'integer', example: 7 })
  id?: number;
  @ApiPropertyOptional({ example: 'Smith et al. 2024, geochemistry' })
  label?: string;
  @ApiPropertyOptional({ example: 'text' })
  related_resource_type?: string;
  @ApiProperty({ example: 'https://doi.org/10.1594/PANGAEA.123456' })
  uri: string;
  @ApiPropertyOptional({ example: 'DOI' })
  uri_type?: string;
  @ApiProperty({ nullable: true, type: String })
  description: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'IsReferencedBy' })
  relation_type: string | null;
}

/** A sample as the API returns it (CONTRACT §4). */
export class SampleDto {
  @ApiProperty({ example: 1042 })
  id: number;
  /** DOI form: the configured prefix and the suffix. */
  @ApiProperty({ example: '10.5072/IEABC0001' })
  igsn: string;
  @ApiProperty({ example: 'IEABC' })
  registry_code: string;
  @ApiProperty({ example: 'AT-2024-017' })
  name: string;
  /** The client's own id for the sample (unique among one owner's samples), or null. */
  @ApiProperty({ example: 'FIELD-2024-0017', nullable: true, type: String })
  external_sample_id: string | null;
  /** Null only while the sample is `reserved` (an IGSN minted before fieldwork, not yet described). */
  @ApiProperty({ example: 'Individual sample', nullable: true, type: String })
  object_type: string | null;
  @ApiProperty({ example: 'Material sample > Individual sample', nullable: true, type: String })
  object_type_path: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'Individual Sample > Thin Section',
    description:
      'The SESAR 1.0 sample type (and subtype) a legacy XML client sent, as sent, that object_type was mapped ' +
      'from; null for samples registered otherwise. Read-only.',
  })
  legacy_sample_type: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Rock' })
  general_material_type: string | null;
  @ApiProperty({ type: [String], example: ['Igneous>Plutonic'] })
  material_types: string[];
  @ApiProperty({ nullable: true, type: String })
  sample_description: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 41.5 })
  latitude: number | null;
  @ApiProperty({ nullable: true, type: Number, example: -72.8 })
  longitude: number | null;
  @ApiProperty({ nullable: true, type: Number })
  end_latitude: number | null;
  @ApiProperty({ nullable: true, type: Number })
  end_longitude: number | null;
  @ApiProperty({ nullable: true, type: Number })
  elevation: number | null;
  @ApiProperty({ nullable: true, type: Number })
  elevation_end: number | null;
  @ApiProperty({ nullable: true, enum: LENGTH_UNITS })
  elevation_unit: string | null;
  @ApiProperty({ nullable: true, type: Number })
  depth_min: number | null;
  @ApiProperty({ nullable: true, type: Number })
  depth_max: number | null;
  @ApiProperty({ nullable: true, enum: LENGTH_UNITS })
  depth_unit: string | null;
  /** ISO 3166-1 alpha-2. */
  @ApiProperty({ nullable: true, type: String, example: 'US' })
  country: string | null;
  @ApiProperty({ nullable: true, type: String })
  province: string | null;
  @ApiProperty({ nullable: true, type: String })
  county: string | null;
  @ApiProperty({ nullable: true, type: String })
  city: string | null;
  @ApiProperty({ nullable: true, type: String })
  locality: string | null;
  @ApiProperty({ nullable: true, type: String })
  location_description: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'GPS' })
  location_method: string | null;
  @ApiProperty({ nullable: true, type: String })
  purpose: string | null;
  @ApiProperty({ nullable: true, type: String })
  size: string | null;
  @ApiProperty({ nullable: true, type: String })
  field_name: string | null;
  @ApiProperty({ nullable: true, type: String })
  primary_location_name: string | null;
  @ApiProperty({ nullable: true, type: String })
  primary_location_type: string | null;
  @ApiProperty({ nullable: true, type: String })
  vertical_datum: string | null;
  @ApiProperty({ nullable: true, type: String })
  northing: string | null;
  @ApiProperty({ nullable: true, type: String })
  easting: string | null;
  @ApiProperty({ nullable: true, type: String })
  zone: string | null;
  @ApiProperty({ nullable: true, type: String })
  depth_scale: string | null;
  @ApiProperty({ nullable: true, type: String })
  size_unit: string | null;
  @ApiProperty({ nullable: true, type: String })
  cruise_field_prgrm: string | null;
  @ApiProperty({ nullable: true, type: String })
  current_archive_contact: string | null;
  @ApiProperty({ nullable: true, type: String })
  original_archive_contact: string | null;
  /** IGSN (DOI form) of the parent sample. */
  @ApiProperty({ nullable: true, type: String })
  parent_sample: string | null;
  @ApiProperty({ nullable: true, type: String })
  external_parent_name: string | null;
  @ApiProperty({ nullable: true, type: String })
  external_parent_object_type: string | null;
  @ApiProperty({ type: [String] })
  other_names: string[];
  @ApiProperty({ nullable: true, type: Number })
  numeric_age_min: number | null;
  @ApiProperty({ nullable: true, type: Number })
  numeric_age_max: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'Ma' })
  numeric_age_unit: string | null;
  @ApiProperty({ nullable: true, type: String })
  geologic_age_verbatim: string | null;
  @ApiProperty({ nullable: true, type: String })
  geologic_unit: string | null;
  @ApiProperty({ nullable: true, type: String })
  sampling_method: string | null;
  @ApiProperty({ nullable: true, type: String })
  sampling_method_detail: string | null;
  @ApiProperty({ nullable: true, type: String, example: '2024-06-01T00:00:00.000Z' })
  sampling_start_date: string | null;
  @ApiProperty({ nullable: true, type: String })
  sampling_end_date: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'day' })
  sampling_date_precision: string | null;
  @ApiProperty({ nullable: true, type: String })
  launch_label: string | null;
  @ApiProperty({ type: [SampleCollector] })
  collectors: SampleCollector[];
  @ApiProperty({ type: SamplePlatform, nullable: true })
  platform: SamplePlatform | null;
  @ApiProperty({ type: SampleLaunchPlatform, nullable: true })
  launch_platform: SampleLaunchPlatform | null;
  @ApiProperty({ type: SampleArchive, nullable: true })
  current_archive: SampleArchive | null;
  @ApiProperty({ type: SampleArchive, nullable: true })
  original_archive: SampleArchive | null;
  @ApiProperty({ type: [SampleRelatedResource] })
  related_resources: SampleRelatedResource[];
  @ApiProperty({ example: false })
  is_draft: boolean;
  @ApiProperty({ enum: STORE_STATUSES, example: 'published' })
  metadata_store_status: string;
  @ApiProperty({ example: false })
  is_deactivated: boolean;
  @ApiProperty({ nullable: true, enum: DEACTIVATE_REASONS })
  deactivate_reason: string | null;
  /** Embargo end: hidden from the public until then. */
  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T10:00:00.000Z' })
  publish_date: string | null;
  /** Id of the owning user. */
  @ApiProperty({ nullable: true, type: Number, example: 3 })
  user_owner: number | null;
  /** Id of the owning team. */
  @ApiProperty({ nullable: true, type: Number })
  team_owner: number | null;
  @ApiProperty({ nullable: true, type: Number })
  batch_id: number | null;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at: string;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  updated_at: string;
  /** Whether the caller may PATCH or deactivate this sample. */
  @ApiProperty({ example: true })
  can_edit: boolean;
  /** Whether the caller may deactivate this sample (the same permission as editing it). */
  @ApiProperty({ example: true })
  can_deactivate: boolean;
  /** SESAR2's name for `id`. */
  @ApiProperty({ example: 42 })
  sample_id: number;
  /** SESAR2's name for `created_at`. */
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  registration_date: string;
  /** SESAR2's name for `updated_at`. */
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  last_update_date: string;
  /** DataCite registration of the IGSN (read-only). */
  doi: SampleDoiStatus;
}

export class SampleResponse {
  data: SampleDto;
}

export class SampleListResponse {
  @ApiProperty({
    example: 1,
    description: `Matching samples: exact up to ${EXACT_COUNT_LIMIT.toLocaleString('en')}, otherwise an estimate (see count_exact).`,
  })
  count: number;
  @ApiProperty({
    example: true,
    description: 'false when count (and so total_pages) is an estimate; next and previous are always exact.',
  })
  count_exact: boolean;
  @ApiProperty({ nullable: true, type: String, example: 'https://registry.example.org/api/samples/?page=2' })
  next: string | null;
  @ApiProperty({ nullable: true, type: String, example: null })
  previous: string | null;
  @ApiProperty({ example: 1 })
  current_page: number;
  @ApiProperty({ example: 1 })
  total_pages: number;
  @ApiProperty({ example: 25 })
  page_size: number;
  data: SampleDto[];
}
