import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { sampleDoiStatus } from './dto/sample-doi-status.dto';
import { SampleTombstone } from './dto/sample-lookup.dto';
import { SampleCollector, SampleDto } from './dto/sample.dto';
import { IgsnService } from './igsn.service';
import { SampleAccessFacts } from './sample-access.policy';
import { PLAIN_SAMPLE_FIELDS, PlainSampleJson, PlainSampleKey, PlainSampleRow } from './sample-fields';
import { RelatedResource, StoreStatus } from './sample.entity';

/**
 * One row of the sample detail statement (SampleRepository): the catalogue's plain fields, typed
 * from it, and the columns of the fields with joins or shapes of their own.
 */
export type SampleRow = PlainSampleRow & {
  id: string;
  igsn: string;
  /** Null only for a reserved sample, which has no object type yet. */
  object_type: string | null;
  object_type_path: string | null;
  parent_igsn: string | null;
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
  deactivated_at: Date | null;
  /** The samples a `duplicate igsn` deactivation named (bare suffixes). */
  deactivate_duplicate_igsns: string[] | null;
  user_owner_id: number | null;
  team_owner_id: number | null;
  created_at: Date;
  updated_at: Date;
  doi_state: string | null;
  doi_updated_at: Date | null;
  doi_error: string | null;
};

/** The SampleDto fields that are not a plain copy of a catalogue column: SampleMapper writes each. */
type DerivedKey = Exclude<keyof SampleDto, PlainSampleKey>;

// Compile-time guard: a plain field whose catalogue type disagrees with its SampleDto property fails here.
type MistypedPlainField = {
  [K in PlainSampleKey]: [PlainSampleJson[K]] extends [SampleDto[K]]
    ? [SampleDto[K]] extends [PlainSampleJson[K]]
      ? never
      : K
    : K;
}[PlainSampleKey];
const plainFieldsMatchSampleDto: [MistypedPlainField] extends [never] ? true : MistypedPlainField = true;
void plainFieldsMatchSampleDto;

/** How one key of the body is filled: copied from the row (plain) or taken from the derived fields. */
type JsonSlot = { key: PlainSampleKey; plain: true; date: boolean } | { key: DerivedKey; plain: false };

const PLAIN_BY_KEY = new Map(PLAIN_SAMPLE_FIELDS.map((field) => [field.key as string, field]));

/**
 * The body's keys in SampleDto's declaration order — the order clients have always received. Every
 * property SampleDto declares is an own property of an instance (ES2022 class fields), so the class
 * is the one list of the body's layout (sample-fields.spec.ts checks it).
 */
export const SAMPLE_JSON_SLOTS: readonly JsonSlot[] = Object.keys(new SampleDto()).map((key): JsonSlot => {
  const field = PLAIN_BY_KEY.get(key);
  if (field) return { key: field.key, plain: true, date: field.type === 'date' || field.type === 'datetime' };
  return { key: key as DerivedKey, plain: false };
});

// Without ES2022 class fields a SampleDto instance has no own keys: fail at start-up, not with empty bodies.
const unplacedPlainField = PLAIN_SAMPLE_FIELDS.find(
  (field) => !SAMPLE_JSON_SLOTS.some((slot) => slot.key === field.key),
);
if (unplacedPlainField) throw new Error(`SampleDto declares no property ${unplacedPlainField.key}.`);

/** A date or date-time column as the JSON writes it. */
function isoDate(value: Date | null | undefined): string | null {
  return value?.toISOString() ?? null;
}

/**
 * The row and its derived fields as the body, compiled once from SAMPLE_JSON_SLOTS into one object
 * literal: every body gets one fixed shape, built and serialised about three times faster than ~80
 * keys set one by one on `{}` (which V8 keeps as a dictionary). The keys are SampleDto's own (code,
 * not input), written as JSON string literals; the JSON is the same, key for key.
 */
const assembleSampleJson = ((): ((row: SampleRow, derived: Pick<SampleDto, DerivedKey>) => SampleDto) => {
  const entries = SAMPLE_JSON_SLOTS.map((slot) => {
    const key = JSON.stringify(slot.key);
    if (!slot.plain) return `${key}: derived[${key}]`;
    return slot.date ? `${key}: isoDate(row[${key}])` : `${key}: row[${key}]`;
  });
  // A function built from the slots (a serializer compiled from the response schema, issue 23 §2).
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const compile = new Function('isoDate', `return (row, derived) => ({\n${entries.join(',\n')}\n});`) as (
    iso: typeof isoDate,
  ) => (row: SampleRow, derived: Pick<SampleDto, DerivedKey>) => SampleDto;
  return compile(isoDate);
})();

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
    private readonly igsnService: IgsnService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  /** A deactivated sample as both lookups answer it (410): identifier, date and reason only. */
  toTombstone(row: SampleRow): SampleTombstone {
    return {
      igsn: this.igsnService.toDoi(row.igsn),
      deactivation_date: row.deactivated_at ? row.deactivated_at.toISOString() : null,
      deactivate_reason: row.deactivate_reason,
      duplicate_igsns: (row.deactivate_duplicate_igsns ?? []).map((suffix) => this.igsnService.toDoi(suffix)),
    };
  }

  toDto(row: SampleRow, canEdit: boolean): SampleDto {
    return assembleSampleJson(row, this.derivedFields(row, canEdit));
  }

  /** The fields with joins or shapes of their own (the plain ones are copied in toDto). */
  private derivedFields(row: SampleRow, canEdit: boolean): Pick<SampleDto, DerivedKey> {
    const iso = (date: Date | null) => (date ? date.toISOString() : null);
    const created = row.created_at.toISOString();
    const updated = row.updated_at.toISOString();
    return {
      id: Number(row.id),
      igsn: this.igsnService.toDoi(row.igsn),
      object_type: row.object_type,
      object_type_path: row.object_type_path,
      parent_sample: row.parent_igsn ? this.igsnService.toDoi(row.parent_igsn) : null,
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
      publish_date: iso(row.publish_date),
      user_owner: row.user_owner_id,
      team_owner: row.team_owner_id,
      created_at: created,
      updated_at: updated,
      can_edit: canEdit,
      // Deactivation needs edit permission (SampleAccessPolicy.canDeactivate).
      can_deactivate: canEdit,
      // SESAR2's names for the same facts, for clients written against it.
      sample_id: Number(row.id),
      registration_date: created,
      last_update_date: updated,
      doi: sampleDoiStatus(
        { state: row.doi_state, updatedAt: row.doi_updated_at, error: row.doi_error },
        this.config.datacite !== null,
      ),
    };
  }
}
