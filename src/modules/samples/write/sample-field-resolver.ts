import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../../../core/http/api-error';
import { FieldErrors } from '../../../core/http/error-body';
import { REGISTRY_DATE_FORMS, parseRegistryDate } from '../../../core/http/registry-date';
import {
  RelatedResourceDto,
  RelatedResourceRefDto,
  UpdateSampleDto,
  isRelatedResourceRef,
} from '../dto/sample-write.dto';
import { RelatedResourceRepository } from '../related-resources/related-resource.repository';
import { SampleAccessPolicy, SampleCaller } from '../sample-access.policy';
import { PARENT_NEEDS_EDIT, refusedParentLinks } from '../sample-lineage';
import { SampleReader } from '../sample-reader';
import { SampleReferenceLookups } from '../sample-references';
import { SampleWriteRepository } from '../sample-write.repository';
import { accessFacts } from '../sample.mapper';
import { Sample } from '../sample.entity';
import { ResolvedWrite } from './sample-write.context';
import { refuseFieldErrors, refuseReversedRanges } from './sample-write-rules';

/** Plain scalar fields copied as given (after DTO validation and trimming). */
const SCALAR_FIELDS = [
  ['name', 'name'],
  ['external_sample_id', 'externalSampleId'],
  ['sample_description', 'sampleDescription'],
  ['latitude', 'latitude'],
  ['longitude', 'longitude'],
  ['end_latitude', 'endLatitude'],
  ['end_longitude', 'endLongitude'],
  ['elevation', 'elevation'],
  ['elevation_end', 'elevationEnd'],
  ['elevation_unit', 'elevationUnit'],
  ['depth_min', 'depthMin'],
  ['depth_max', 'depthMax'],
  ['depth_unit', 'depthUnit'],
  ['province', 'province'],
  ['county', 'county'],
  ['city', 'city'],
  ['locality', 'locality'],
  ['location_description', 'locationDescription'],
  ['purpose', 'purpose'],
  ['size', 'size'],
  ['field_name', 'fieldName'],
  ['primary_location_name', 'primaryLocationName'],
  ['primary_location_type', 'primaryLocationType'],
  ['vertical_datum', 'verticalDatum'],
  ['northing', 'northing'],
  ['easting', 'easting'],
  ['zone', 'zone'],
  ['depth_scale', 'depthScale'],
  ['size_unit', 'sizeUnit'],
  ['cruise_field_prgrm', 'cruiseFieldPrgrm'],
  ['current_archive_contact', 'currentArchiveContact'],
  ['original_archive_contact', 'originalArchiveContact'],
  ['external_parent_name', 'externalParentName'],
  ['external_parent_object_type', 'externalParentObjectType'],
  ['numeric_age_min', 'numericAgeMin'],
  ['numeric_age_max', 'numericAgeMax'],
  ['numeric_age_unit', 'numericAgeUnit'],
  ['geologic_age_verbatim', 'geologicAgeVerbatim'],
  ['geologic_unit', 'geologicUnit'],
  ['sampling_method_detail', 'samplingMethodDetail'],
  ['sampling_date_precision', 'samplingDatePrecision'],
  ['launch_label', 'launchLabel'],
] as const satisfies readonly (readonly [keyof UpdateSampleDto, keyof Sample])[];

const DATE_FIELDS = [
  ['sampling_start_date', 'samplingStartDate'],
  ['sampling_end_date', 'samplingEndDate'],
  ['publish_date', 'publishDate'],
] as const satisfies readonly (readonly [keyof UpdateSampleDto, keyof Sample])[];

/** One resolution: the body, who sends it, the row it updates (if any) and the lookups to use. */
interface Resolution {
  dto: UpdateSampleDto;
  caller: SampleCaller;
  manager: EntityManager;
  existing: Sample | undefined;
  refs: SampleReferenceLookups;
}

/**
 * The "resolve references" step of SampleWriter: turns the fields present in a write into columns,
 * each named reference (object type, vocabularies, country, parent, platforms, archives, related
 * resources, collectors) into its id or stored spelling. Absent fields are left out (PATCH semantics).
 */
@Injectable()
export class SampleFieldResolver {
  constructor(
    private readonly reader: SampleReader,
    private readonly policy: SampleAccessPolicy,
    private readonly sampleWriteRepository: SampleWriteRepository,
    private readonly relatedResourcesRepository: RelatedResourceRepository,
  ) {}

  /** The columns of a write; `existing` is the row being updated, if any. */
  async resolve(
    dto: UpdateSampleDto,
    caller: SampleCaller,
    manager: EntityManager,
    existing: Sample | undefined,
    refs: SampleReferenceLookups,
  ): Promise<ResolvedWrite> {
    const job: Resolution = { dto, caller, manager, existing, refs };
    const columns: Partial<Sample> = {};
    const scalars = columns as Record<string, unknown>;
    for (const [field, column] of SCALAR_FIELDS) {
      if (dto[field] !== undefined) scalars[column] = dto[field];
    }
    Object.assign(columns, await this.vocabularyColumns(job), await this.agentColumns(job));
    let relatedResourceIds: number[] | undefined;
    if (dto.related_resources !== undefined) {
      columns.relatedResources = inlineRelatedResources(dto.related_resources);
      relatedResourceIds = await this.usableRelatedResources(dto.related_resources, caller, manager);
    }
    Object.assign(columns, dateColumns(dto));
    refuseReversedRanges({ ...existing, ...columns });
    const collectorIds =
      dto.collectors === undefined ? undefined : await refs.collectorIds(dto.collectors, caller.user.userId, manager);
    return { columns, collectorIds, relatedResourceIds };
  }

  /** Object type, material types, other names, the closed term lists, country and parent. */
  private async vocabularyColumns({ dto, caller, manager, existing, refs }: Resolution): Promise<Partial<Sample>> {
    const columns: Partial<Sample> = {};
    if (dto.object_type !== undefined) columns.objectTypeId = await refs.objectTypeId(dto.object_type, manager);
    if (dto.material_types !== undefined) {
      columns.materialTypes = dto.material_types.map((label) => label.trim()).filter(Boolean);
    }
    if (dto.other_names !== undefined) {
      columns.otherNames = dto.other_names.map((label) => label.trim()).filter(Boolean);
    }
    if (dto.general_material_type !== undefined) {
      // A closed list like every other vocabulary: stored as the vocabulary spells it, unknown → 400.
      columns.generalMaterialType = await refs.termLabel(
        'material_type',
        dto.general_material_type,
        'general_material_type',
        manager,
      );
    }
    if (dto.location_method !== undefined) {
      columns.locationMethod = await refs.termLabel('location_method', dto.location_method, 'location_method', manager);
    }
    if (dto.sampling_method !== undefined) {
      columns.samplingMethod = await refs.termLabel('sampling_method', dto.sampling_method, 'sampling_method', manager);
    }
    if (dto.country !== undefined) columns.country = await refs.countryCode(dto.country, manager);
    if (dto.parent_sample !== undefined) {
      columns.parentSampleId = await this.resolveParent(dto.parent_sample, caller, manager, existing);
    }
    return columns;
  }

  /** Platforms and archives: found or created (by the caller) from what the body describes. */
  private async agentColumns({ dto, caller, manager, refs }: Resolution): Promise<Partial<Sample>> {
    const createdBy = caller.user.userId;
    const columns: Partial<Sample> = {};
    if (dto.platform !== undefined) {
      columns.platformId = dto.platform ? await refs.platformId(dto.platform, createdBy, manager) : null;
    }
    if (dto.launch_platform !== undefined) {
      columns.launchPlatformId = dto.launch_platform
        ? await refs.launchPlatformId(dto.launch_platform, createdBy, manager)
        : null;
    }
    for (const [field, column] of [
      ['current_archive', 'currentArchiveId'],
      ['original_archive', 'originalArchiveId'],
    ] as const) {
      const input = dto[field];
      if (input !== undefined) columns[column] = input ? await refs.archiveId(input, field, createdBy, manager) : null;
    }
    return columns;
  }

  /**
   * The ids of the related resource objects a `related_resources` list names, each one the caller
   * may use (their own; any, for staff and admins). 400 naming the item otherwise.
   */
  private async usableRelatedResources(
    items: (RelatedResourceDto | RelatedResourceRefDto)[],
    caller: SampleCaller,
    manager: EntityManager,
  ): Promise<number[]> {
    const refs = items.flatMap((item, index) => (isRelatedResourceRef(item) ? [{ id: item.id, index }] : []));
    if (!refs.length) return [];
    const anyCreator = caller.user.isStaff || caller.user.isAdmin;
    const usable = await this.relatedResourcesRepository.existingIds(
      manager,
      refs.map((ref) => ref.id),
      anyCreator ? undefined : caller.user.userId,
    );
    const errors: FieldErrors = {};
    for (const ref of refs) {
      if (!usable.has(ref.id)) errors[`related_resources.${ref.index}.id`] = [`no related resource ${ref.id} of yours`];
    }
    refuseFieldErrors(errors);
    return [...new Set(refs.map((ref) => ref.id))];
  }

  /**
   * A 400 for a deprecated material type (`for_registration` false) a write sends, naming the field
   * and where the current terms are listed. A value the sample already holds (a migrated sample
   * sent back as fetched) is not new, so it passes.
   */
  async refuseRetiredMaterialTypes(
    dto: UpdateSampleDto,
    existing: Sample | undefined,
    refs: SampleReferenceLookups,
    manager: EntityManager,
  ): Promise<void> {
    const sent = [dto.general_material_type, ...(dto.material_types ?? [])].filter(
      (label): label is string => typeof label === 'string' && label.trim() !== '',
    );
    if (!sent.length) return;
    const retired = await refs.retiredMaterialTypes(manager);
    const held = new Set(
      [existing?.generalMaterialType, ...(existing?.materialTypes ?? [])].map((label) => label?.toLowerCase()),
    );
    const isNew = (label: string) => retired.has(label.trim().toLowerCase()) && !held.has(label.trim().toLowerCase());
    const problem = (label: string) =>
      `"${label.trim()}" is a deprecated material type, kept for migrated samples only; use a term with ` +
      'for_registration true from GET /api/vocab/material-types/';
    const errors: FieldErrors = {};
    const general = dto.general_material_type;
    if (general && isNew(general)) errors.general_material_type = [problem(general)];
    const listed = (dto.material_types ?? []).filter(isNew);
    if (listed.length) errors.material_types = listed.map(problem);
    refuseFieldErrors(errors);
  }

  private async resolveParent(
    value: string | null,
    caller: SampleCaller,
    manager: EntityManager,
    existing: Sample | undefined,
  ): Promise<number | null> {
    if (value === null) return null;
    const row = await this.reader.visibleRowByIgsn(value, caller, manager);
    if (!row) throw ApiError.invalidField('parent_sample', `no sample with IGSN ${value} is visible to you`);
    if (existing && Number(row.id) === existing.id)
      throw ApiError.invalidField('parent_sample', 'cannot be the sample itself');
    // A child shows on its parent's landing page and in its DataCite HasPart: naming a parent changes
    // the parent's record, so it needs edit permission on it (a link already stored may be sent back).
    if (existing?.parentSampleId !== Number(row.id) && !this.policy.canEdit(accessFacts(row), caller)) {
      throw ApiError.forbiddenField('parent_sample', PARENT_NEEDS_EDIT(value));
    }
    if (existing) {
      const link = { childIgsn: existing.igsn, parentId: Number(row.id), parentShown: value };
      const refused = (await refusedParentLinks(this.sampleWriteRepository, manager, [link])).get(existing.igsn);
      if (refused) throw ApiError.invalidField('parent_sample', refused);
    }
    return Number(row.id);
  }
}

/** The related resources a list gives inline (not by id), as the sample's JSON column keeps them. */
function inlineRelatedResources(items: (RelatedResourceDto | RelatedResourceRefDto)[]): Sample['relatedResources'] {
  const inline = items.filter((item) => !isRelatedResourceRef(item)) as RelatedResourceDto[];
  return inline.map((resource) => ({
    uri: resource.uri,
    description: resource.description ?? null,
    relation_type: resource.relation_type ?? null,
  }));
}

/** The dates present in a write, parsed (the DTO checked their form; one that does not parse is a 400, never NULL). */
function dateColumns(dto: UpdateSampleDto): Partial<Sample> {
  const columns: Partial<Sample> = {};
  for (const [field, column] of DATE_FIELDS) {
    const value = dto[field];
    if (value === undefined) continue;
    const date = value === null ? null : parseRegistryDate(value);
    if (date === undefined) throw ApiError.invalidField(field, `must be a date: ${REGISTRY_DATE_FORMS}`);
    columns[column] = date;
  }
  return columns;
}
