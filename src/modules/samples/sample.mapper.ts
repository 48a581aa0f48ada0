import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { sampleDoiStatus } from './dto/sample-doi-status.dto';
import { SampleTombstone } from './dto/sample-lookup.dto';
import { SampleCollector, SampleDto } from './dto/sample.dto';
import { IgsnService } from './igsn.service';
import { SampleAccessFacts } from './sample-access.policy';
import { RelatedResource, StoreStatus } from './sample.entity';

/** One row of the sample detail statement (SampleRepository). */
export interface SampleRow {
  id: string;
  igsn: string;
  registry_code: string;
  name: string;
  external_sample_id: string | null;
  /** Null only for a reserved sample, which has no object type yet. */
  object_type: string | null;
  object_type_path: string | null;
  legacy_sample_type: string | null;
  general_material_type: string | null;
  material_types: string[];
  sample_description: string | null;
  latitude: number | null;
  longitude: number | null;
  end_latitude: number | null;
  end_longitude: number | null;
  elevation: number | null;
  elevation_end: number | null;
  elevation_unit: string | null;
  depth_min: number | null;
  depth_max: number | null;
  depth_unit: string | null;
  country: string | null;
  province: string | null;
  county: string | null;
  city: string | null;
  locality: string | null;
  location_description: string | null;
  location_method: string | null;
  purpose: string | null;
  size: string | null;
  field_name: string | null;
  primary_location_name: string | null;
  primary_location_type: string | null;
  vertical_datum: string | null;
  northing: string | null;
  easting: string | null;
  zone: string | null;
  depth_scale: string | null;
  size_unit: string | null;
  cruise_field_prgrm: string | null;
  current_archive_contact: string | null;
  original_archive_contact: string | null;
  parent_igsn: string | null;
  external_parent_name: string | null;
  external_parent_object_type: string | null;
  other_names: string[];
  numeric_age_min: number | null;
  numeric_age_max: number | null;
  numeric_age_unit: string | null;
  geologic_age_verbatim: string | null;
  geologic_unit: string | null;
  sampling_method: string | null;
  sampling_method_detail: string | null;
  sampling_start_date: Date | null;
  sampling_end_date: Date | null;
  sampling_date_precision: string | null;
  launch_label: string | null;
  collectors: SampleCollector[] | null;
  platform_id: number | null;
  platform_label: string | null;
  platform_type: string | null;
  platform_description: string | null;
  launch_platform_id: number | null;
  launch_platform_label: string | null;
  launch_type: string | null;
  current_archive_id: number | null;
  current_archive_label: string | null;
  original_archive_id: number | null;
  original_archive_label: string | null;
  related_resources: RelatedResource[];
  /** The related resource objects linked to the sample (null when none). */
  linked_resources: LinkedResource[] | null;
  metadata_store_status: StoreStatus;
  publish_date: Date | null;
  is_deactivated: boolean;
  deactivate_reason: string | null;
  deactivated_at: Date | null;
  /** The samples a `duplicate igsn` deactivation named (bare suffixes). */
  deactivate_duplicate_igsns: string[] | null;
  user_owner_id: number | null;
  team_owner_id: number | null;
  batch_id: number | null;
  created_at: Date;
  updated_at: Date;
  doi_state: string | null;
  doi_updated_at: Date | null;
  doi_error: string | null;
}

/** A related resource object as the detail statement aggregates it. */
export interface LinkedResource {
  id: number;
  label: string;
  related_resource_type: string;
  uri: string;
  uri_type: string;
  description: string | null;
}

/**
 * A sample's related resources as one list: its inline links, then the objects linked to it, which
 * DataCite's mapping relates as IsReferencedBy.
 */
export function relatedResourcesOf(row: Pick<SampleRow, 'related_resources' | 'linked_resources'>) {
  return [
    ...row.related_resources,
    ...(row.linked_resources ?? []).map((resource) => ({ ...resource, relation_type: 'IsReferencedBy' })),
  ];
}

export function accessFacts(row: SampleRow): SampleAccessFacts {
  return {
    metadataStoreStatus: row.metadata_store_status,
    publishDate: row.publish_date,
    isDeactivated: row.is_deactivated,
    userOwnerId: row.user_owner_id,
    teamOwnerId: row.team_owner_id,
    deactivatedAt: row.deactivated_at,
  };
}

/** A stored sample row as the API's sample JSON (CONTRACT §4). */
@Injectable()
export class SampleMapper {
  constructor(
    private readonly igsn: IgsnService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  /** A deactivated sample as both lookups answer it (410): identifier, date and reason only. */
  toTombstone(row: SampleRow): SampleTombstone {
    return {
      igsn: this.igsn.toDoi(row.igsn),
      deactivation_date: row.deactivated_at ? row.deactivated_at.toISOString() : null,
      deactivate_reason: row.deactivate_reason,
      duplicate_igsns: (row.deactivate_duplicate_igsns ?? []).map((suffix) => this.igsn.toDoi(suffix)),
    };
  }

  toDto(row: SampleRow, canEdit: boolean): SampleDto {
    const iso = (date: Date | null) => (date ? date.toISOString() : null);
    return {
      id: Number(row.id),
      igsn: this.igsn.toDoi(row.igsn),
      registry_code: row.registry_code,
      name: row.name,
      external_sample_id: row.external_sample_id,
      object_type: row.object_type,
      object_type_path: row.object_type_path,
      legacy_sample_type: row.legacy_sample_type,
      general_material_type: row.general_material_type,
      material_types: row.material_types,
      sample_description: row.sample_description,
      latitude: row.latitude,
      longitude: row.longitude,
      end_latitude: row.end_latitude,
      end_longitude: row.end_longitude,
      elevation: row.elevation,
      elevation_end: row.elevation_end,
      elevation_unit: row.elevation_unit,
      depth_min: row.depth_min,
      depth_max: row.depth_max,
      depth_unit: row.depth_unit,
      country: row.country,
      province: row.province,
      county: row.county,
      city: row.city,
      locality: row.locality,
      location_description: row.location_description,
      location_method: row.location_method,
      purpose: row.purpose,
      size: row.size,
      field_name: row.field_name,
      primary_location_name: row.primary_location_name,
      primary_location_type: row.primary_location_type,
      vertical_datum: row.vertical_datum,
      northing: row.northing,
      easting: row.easting,
      zone: row.zone,
      depth_scale: row.depth_scale,
      size_unit: row.size_unit,
      cruise_field_prgrm: row.cruise_field_prgrm,
      current_archive_contact: row.current_archive_contact,
      original_archive_contact: row.original_archive_contact,
      parent_sample: row.parent_igsn ? this.igsn.toDoi(row.parent_igsn) : null,
      external_parent_name: row.external_parent_name,
      external_parent_object_type: row.external_parent_object_type,
      other_names: row.other_names,
      numeric_age_min: row.numeric_age_min,
      numeric_age_max: row.numeric_age_max,
      numeric_age_unit: row.numeric_age_unit,
      geologic_age_verbatim: row.geologic_age_verbatim,
      geologic_unit: row.geologic_unit,
      sampling_method: row.sampling_method,
      sampling_method_detail: row.sampling_method_detail,
      sampling_start_date: iso(row.sampling_start_date),
      sampling_end_date: iso(row.sampling_end_date),
      sampling_date_precision: row.sampling_date_precision,
      launch_label: row.launch_label,
      collectors: row.collectors ?? [],
      platform:
        row.platform_id === null
          ? null
          : {
              id: row.platform_id,
              label: row.platform_label ?? '',
              platform_type: row.platform_type,
              description: row.platform_description,
            },
      launch_platform:
        row.launch_platform_id === null
          ? null
          : { id: row.launch_platform_id, label: row.launch_platform_label ?? '', launch_type: row.launch_type },
      current_archive:
        row.current_archive_id === null ? null : { id: row.current_archive_id, label: row.current_archive_label ?? '' },
      original_archive:
        row.original_archive_id === null
          ? null
          : { id: row.original_archive_id, label: row.original_archive_label ?? '' },
      related_resources: relatedResourcesOf(row),
      is_draft: row.metadata_store_status === 'draft',
      metadata_store_status: row.metadata_store_status,
      is_deactivated: row.is_deactivated,
      deactivate_reason: row.deactivate_reason,
      publish_date: iso(row.publish_date),
      user_owner: row.user_owner_id,
      team_owner: row.team_owner_id,
      batch_id: row.batch_id,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      can_edit: canEdit,
      // Deactivation needs edit permission (SampleAccessPolicy.canDeactivate).
      can_deactivate: canEdit,
      // SESAR2's names for the same facts, for clients written against it.
      sample_id: Number(row.id),
      registration_date: row.created_at.toISOString(),
      last_update_date: row.updated_at.toISOString(),
      doi: sampleDoiStatus(
        { state: row.doi_state, updatedAt: row.doi_updated_at, error: row.doi_error },
        this.config.datacite !== null,
      ),
    };
  }
}
