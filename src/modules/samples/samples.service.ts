import { REGISTRY_DATE_FORMS, parseRegistryDate } from '../../core/http/registry-date';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { FieldErrors } from '../../core/http/error-body';
import { ObjectTypeResolver } from '../vocabularies/object-type.resolver';
import { AccountsService } from '../accounts/accounts.service';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import {
  CreateSampleDto,
  LONG_TEXT_MAX,
  RelatedResourceDto,
  RelatedResourceRefDto,
  isRelatedResourceRef,
  UpdateSampleDto,
} from './dto/sample-write.dto';
import { SampleDto } from './dto/sample.dto';
import { SampleLookup } from './dto/sample-lookup.dto';
import { SampleDeactivationDto } from './dto/sample-deactivation.dto';
import { IgsnMinter, MintOptions } from './igsn-minter';
import { IgsnService } from './igsn.service';
import { SampleAccessPolicy, SampleCaller } from './sample-access.policy';
import { SampleMapper, SampleRow, accessFacts } from './sample.mapper';
import { DeactivateReason, Sample, StoreStatus } from './sample.entity';
import { SampleRecord, SampleRepository, isUniqueViolation, takenIgsnOf } from './sample.repository';
import { SampleReferenceLookups, SampleReferences } from './sample-references';
import { PARENT_NEEDS_EDIT, refusedParentLinks } from './sample-lineage';
import { withCanonicalFieldNames } from './sample-field-aliases';
import { RelatedResourceRepository } from './related-resources/related-resource.repository';

type SampleInput = UpdateSampleDto;

/** Columns a write sets, plus the collectors list when it was sent. */
export interface ResolvedWrite {
  columns: Partial<Sample>;
  collectorIds?: number[];
  /** The related resource objects the sample links to, when `related_resources` was sent. */
  relatedResourceIds?: number[];
}

export interface PrepareOptions {
  /** Reference lookups to use (a batch passes a memoized copy). */
  references?: SampleReferenceLookups;
  /** Mint an IGSN when none is supplied (a batch mints in blocks instead). */
  mint?: boolean;
  /** Check a supplied IGSN is free (a batch checks all of them in one query). */
  checkSuppliedIgsn?: boolean;
  /**
   * What a reserved sample written to becomes instead of being published: a batch completes it as
   * its new samples are stored (`draft` or `pending-review`); PATCH and legacy XML publish it.
   */
  completeReservedAs?: StoreStatus;
  /**
   * Accept deprecated material types (`for_registration` false): legacy XML, whose documents name
   * the SESAR 1.0 terms. JSON and batch writes are refused them.
   */
  allowRetiredMaterialTypes?: boolean;
}

/** Between a stored text and the text appended to it: a blank line, as between paragraphs. */
export const TEXT_APPEND_SEPARATOR = '\n\n';

/** The free-text fields a write may append to instead of replacing. */
const APPENDABLE_FIELDS = [
  ['sample_description', 'sampleDescription'],
  ['location_description', 'locationDescription'],
] as const satisfies readonly (readonly [keyof SampleInput, keyof Sample])[];
export type AppendableField = (typeof APPENDABLE_FIELDS)[number][0];

/** What a write carries besides the JSON body; only the legacy XML interface sends these. */
export interface SampleWriteExtras {
  /** The SESAR 1.0 sample type (and subtype) the object type was mapped from, kept on the sample. */
  legacySampleType?: string;
  /** Update only: text appended, after a blank line, to the field's value (the stored one unless the body sets it). */
  append?: Partial<Record<AppendableField, string>>;
  /** See PrepareOptions.allowRetiredMaterialTypes. */
  allowRetiredMaterialTypes?: boolean;
}

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
] as const satisfies readonly (readonly [keyof SampleInput, keyof Sample])[];

/**
 * The update with each appended text joined to the field's value: the body's when it sets the field,
 * otherwise the stored one (read under the row lock, so concurrent appends all survive). 400 when the
 * result would exceed the field's length limit.
 */
function withAppended(sample: Sample, dto: UpdateSampleDto, append: SampleWriteExtras['append'] = {}): UpdateSampleDto {
  const result: UpdateSampleDto = { ...dto };
  const errors: FieldErrors = {};
  for (const [field, column] of APPENDABLE_FIELDS) {
    const text = append[field];
    if (text === undefined || text === '') continue;
    const base = dto[field] !== undefined ? dto[field] : sample[column];
    const joined = base ? `${base}${TEXT_APPEND_SEPARATOR}${text}` : text;
    if (joined.length > LONG_TEXT_MAX) {
      errors[field] = [`appending the text would make it longer than ${LONG_TEXT_MAX} characters`];
    }
    result[field] = joined;
  }
  if (Object.keys(errors).length) {
    throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
  }
  return result;
}

/** How often an insert whose minted IGSN was taken meanwhile is tried with freshly minted ones. */
const MINT_ATTEMPTS = 5;

/**
 * Register, fetch, update, deactivate and search samples. Every visibility and edit decision goes
 * through SampleAccessPolicy; every reference (object type, vocabularies, agents, platforms,
 * archives) through the reference-data services, inside the write's transaction.
 */
@Injectable()
export class SamplesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly samples: SampleRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsn: IgsnService,
    private readonly minter: IgsnMinter,
    private readonly references: SampleReferences,
    private readonly objectTypes: ObjectTypeResolver,
    private readonly vocabularies: VocabulariesService,
    private readonly clock: Clock,
    private readonly accounts: AccountsService,
    private readonly relatedResources: RelatedResourceRepository,
  ) {}

  /** POST /api/samples/: publishes unless `is_draft: true`. */
  async register(dto: CreateSampleDto, user: AuthenticatedUser, extras: SampleWriteExtras = {}): Promise<SampleDto> {
    if (!user.uploadPermission && !user.isStaff && !user.isAdmin) {
      throw ApiError.forbidden('Registering samples requires upload permission.');
    }
    const caller = await this.policy.caller(user);
    const id = await this.dataSource
      .transaction(async (manager) => {
        const status: StoreStatus = dto.is_draft ? 'draft' : 'published';
        const sample = await this.prepareNew(dto, caller as SampleCaller, status, manager, {
          allowRetiredMaterialTypes: extras.allowRetiredMaterialTypes,
        });
        if (extras.legacySampleType !== undefined) sample.columns.legacySampleType = extras.legacySampleType;
        return this.insert(manager, sample, { minted: dto.igsn === undefined });
      })
      .catch(async (error: unknown) => {
        throw await this.externalIdViolation(error, user.userId, dto.external_sample_id);
      });
    return this.readForCaller(id, caller);
  }

  /**
   * Validates a register body into the columns of a new sample (IGSN minted when absent). Used by
   * the JSON API and, with status `pending-review`/`draft`, by batch registration and legacy XML.
   */
  async prepareNew(
    dto: CreateSampleDto,
    caller: SampleCaller,
    status: StoreStatus,
    manager: EntityManager,
    options: PrepareOptions = {},
  ): Promise<ResolvedWrite> {
    dto = withCanonicalFieldNames(dto);
    const refs = options.references ?? this.references;
    if (dto.registry_code && dto.sesar_code && dto.registry_code.toUpperCase() !== dto.sesar_code.toUpperCase()) {
      throw ApiError.invalidField('registry_code', 'registry_code and sesar_code disagree; send one');
    }
    const { code, teamOwnerId } = await refs.registryCode(dto.registry_code ?? dto.sesar_code, caller, manager);
    const resolved = await this.resolveFields(dto, caller, manager, undefined, refs);
    if (!options.allowRetiredMaterialTypes) await this.refuseRetiredMaterialTypes(dto, undefined, refs, manager);
    const columns = resolved.columns;
    if (columns.externalSampleId) {
      await this.refuseTakenExternalId(manager, caller.user.userId, columns.externalSampleId);
    }
    const errors: FieldErrors = {};
    if (status !== 'draft') {
      for (const field of ['latitude', 'longitude'] as const) {
        if (columns[field] === undefined || columns[field] === null)
          errors[field] = ['is required to publish a sample'];
      }
    } else if (((columns.latitude ?? null) === null) !== ((columns.longitude ?? null) === null)) {
      errors[columns.latitude === null || columns.latitude === undefined ? 'latitude' : 'longitude'] = [
        'give both latitude and longitude, or neither',
      ];
    }
    if (Object.keys(errors).length)
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);

    let suffix: string | undefined;
    if (dto.igsn !== undefined) {
      suffix = this.igsn.parseSupplied(dto.igsn, code);
      const claimant = await this.minter.namespaceClaimant(manager, code, suffix);
      if (claimant) throw ApiError.invalidField('igsn', `lies in the namespace of registry code ${claimant}`);
      if (options.checkSuppliedIgsn !== false && (await this.samples.igsnExists(manager, suffix))) {
        throw this.duplicateIgsn(suffix);
      }
    } else if (options.mint !== false) {
      [suffix] = await this.minter.mint(manager, code, 1);
    }
    const now = this.clock.now();
    return {
      columns: {
        ...columns,
        igsn: suffix,
        registryCode: code,
        metadataStoreStatus: status,
        publishDate: columns.publishDate ?? (status === 'published' ? now : null),
        userOwnerId: caller.user.userId,
        teamOwnerId,
        createdBy: caller.user.userId,
        createdAt: now,
        updatedAt: now,
      },
      collectorIds: resolved.collectorIds,
      relatedResourceIds: resolved.relatedResourceIds,
    };
  }

  /**
   * 409 when another active sample of the owner carries the external id: the client's duplicate
   * guard, naming the sample it already has.
   */
  private async refuseTakenExternalId(
    manager: EntityManager,
    ownerId: number,
    externalId: string,
    exceptId?: number,
  ): Promise<void> {
    const igsn = await this.samples.igsnByExternalId(manager, ownerId, externalId, exceptId);
    if (igsn !== undefined) throw this.takenExternalId(externalId, igsn);
  }

  private takenExternalId(externalId: string, igsn: string | undefined): ApiError {
    const doi = igsn === undefined ? undefined : this.igsn.toDoi(igsn);
    return ApiError.conflict(
      doi
        ? `external_sample_id "${externalId}" already identifies your sample ${doi}.`
        : `external_sample_id "${externalId}" already identifies another of your samples.`,
      { external_sample_id: [doi ? `already identifies your sample ${doi}` : 'already identifies another sample'] },
    );
  }

  /**
   * A write that lost a race for an external id (two registrations at once: the unique index
   * decides) becomes the same 409 as one refused beforehand; any other error is returned as is.
   */
  private async externalIdViolation(
    error: unknown,
    ownerId: number | null,
    externalId: string | null | undefined,
    exceptId?: number,
  ): Promise<unknown> {
    if (!isUniqueViolation(error, 'uq_sample_owner_external_id') || !externalId || ownerId === null) return error;
    const igsn = await this.samples.igsnByExternalId(this.dataSource.manager, ownerId, externalId, exceptId);
    return this.takenExternalId(externalId, igsn);
  }

  private duplicateIgsn(suffix: string): ApiError {
    return ApiError.conflict(`IGSN ${this.igsn.toDoi(suffix)} is already registered.`, {
      igsn: ['already registered'],
    });
  }

  /**
   * Inserts one prepared sample with its collectors. A supplied IGSN taken meanwhile (a race) is a
   * 409; a `minted` one is minted again (the body asked for none, so it gets no 409).
   */
  async insert(manager: EntityManager, write: ResolvedWrite, options: { minted?: boolean } = {}): Promise<number> {
    try {
      return await this.withFreshMints(manager, options.minted ? [write] : [], async (inner) => {
        const id = await this.samples.insertOne(inner, write.columns, write.collectorIds ?? []);
        await this.relatedResources.link(inner, [id], write.relatedResourceIds ?? []);
        return id;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'uq_sample_igsn')) throw this.duplicateIgsn(write.columns.igsn ?? '');
      throw error;
    }
  }

  /**
   * Runs `insert` (of samples among which `minted` got minted IGSNs) under a savepoint. The minter
   * skips IGSNs already stored, but one supplied by a registration that commits between minting and
   * inserting collides: then the insert is rolled back to the savepoint and the minted writes get
   * new IGSNs, up to MINT_ATTEMPTS times.
   */
  async withFreshMints<T>(
    manager: EntityManager,
    minted: ResolvedWrite[],
    insert: (manager: EntityManager) => Promise<T>,
    options: MintOptions = {},
  ): Promise<T> {
    if (!minted.length) return insert(manager);
    for (let attempt = 1; ; attempt++) {
      try {
        return await manager.transaction(insert); // a savepoint inside the caller's transaction
      } catch (error) {
        if (attempt >= MINT_ATTEMPTS || !isUniqueViolation(error, 'uq_sample_igsn')) throw error;
        // A supplied IGSN that is taken stays an error: minting again would not help.
        const taken = takenIgsnOf(error);
        if (taken !== undefined && !minted.some((write) => write.columns.igsn === taken)) throw error;
        await this.mintInto(manager, minted, options);
      }
    }
  }

  /** Mints an IGSN into each write, in one block per registry code. */
  async mintInto(manager: EntityManager, writes: ResolvedWrite[], options: MintOptions = {}): Promise<void> {
    const byCode = new Map<string, ResolvedWrite[]>();
    for (const write of writes) {
      const code = write.columns.registryCode as string;
      byCode.set(code, [...(byCode.get(code) ?? []), write]);
    }
    for (const [code, group] of byCode) {
      const minted = await this.minter.mint(manager, code, group.length, options);
      group.forEach((write, index) => {
        write.columns.igsn = minted[index];
      });
    }
  }

  /**
   * Inserts many prepared samples in one statement, with their collectors in a second; returns the
   * new ids in input order. For batch registration.
   */
  async insertMany(manager: EntityManager, writes: ResolvedWrite[], extra: Partial<Sample> = {}): Promise<number[]> {
    if (!writes.length) return [];
    const metadata = manager.connection.getMetadata(Sample);
    const now = this.clock.now();
    const records = writes.map((write) => ({
      materialTypes: [],
      otherNames: [],
      relatedResources: [],
      isDeactivated: false,
      createdAt: now,
      updatedAt: now,
      ...write.columns,
      ...extra,
    }));
    const names = new Set(records.flatMap((record) => Object.keys(record)));
    const columns = metadata.columns.filter((column) => names.has(column.propertyName) && column.propertyName !== 'id');
    const rows: SampleRecord[] = records.map((record) =>
      Object.fromEntries(
        columns.map((column) => [column.databaseName, record[column.propertyName as keyof typeof record] ?? null]),
      ),
    );
    const idOf = await this.samples.insertMany(
      manager,
      rows,
      columns.map((column) => column.databaseName),
    );
    // RETURNING order is not guaranteed: rows are matched back by their (unique) IGSN.
    const ids = records.map((record) => idOf.get(record.igsn as string) as number);
    await this.samples.insertCollectors(
      manager,
      writes.map((write, index) => ({ sampleId: ids[index], collectorIds: write.collectorIds ?? [] })),
    );
    for (const [index, write] of writes.entries()) {
      await this.relatedResources.link(manager, [ids[index]], write.relatedResourceIds ?? []);
    }
    return ids;
  }

  /**
   * Turns the fields present in a write into columns, resolving every reference. Absent fields are
   * left out (PATCH semantics); `existing` is the row being updated, if any.
   */
  private async resolveFields(
    dto: SampleInput,
    caller: SampleCaller,
    manager: EntityManager,
    existing: Sample | undefined,
    refs: SampleReferenceLookups,
  ): Promise<ResolvedWrite> {
    const columns: Partial<Sample> = {};
    const set = <K extends keyof Sample>(key: K, value: Sample[K]) => {
      columns[key] = value;
    };
    for (const [field, column] of SCALAR_FIELDS) {
      if (dto[field] !== undefined) set(column, dto[field] as never);
    }
    const createdBy = caller.user.userId;

    if (dto.object_type !== undefined) set('objectTypeId', await refs.objectTypeId(dto.object_type, manager));
    if (dto.material_types !== undefined) {
      set('materialTypes', dto.material_types.map((label) => label.trim()).filter(Boolean));
    }
    if (dto.other_names !== undefined) {
      set('otherNames', dto.other_names.map((label) => label.trim()).filter(Boolean));
    }
    if (dto.general_material_type !== undefined) {
      // A closed list like every other vocabulary: stored as the vocabulary spells it, unknown → 400.
      set(
        'generalMaterialType',
        await refs.termLabel('material_type', dto.general_material_type, 'general_material_type', manager),
      );
    }
    if (dto.location_method !== undefined) {
      set('locationMethod', await refs.termLabel('location_method', dto.location_method, 'location_method', manager));
    }
    if (dto.sampling_method !== undefined) {
      set('samplingMethod', await refs.termLabel('sampling_method', dto.sampling_method, 'sampling_method', manager));
    }
    if (dto.country !== undefined) set('country', await refs.countryCode(dto.country, manager));
    if (dto.parent_sample !== undefined) {
      set('parentSampleId', await this.resolveParent(dto.parent_sample, caller, manager, existing));
    }
    if (dto.platform !== undefined) {
      set('platformId', dto.platform ? await refs.platformId(dto.platform, createdBy, manager) : null);
    }
    if (dto.launch_platform !== undefined) {
      set(
        'launchPlatformId',
        dto.launch_platform ? await refs.launchPlatformId(dto.launch_platform, createdBy, manager) : null,
      );
    }
    for (const [field, column] of [
      ['current_archive', 'currentArchiveId'],
      ['original_archive', 'originalArchiveId'],
    ] as const) {
      const input = dto[field];
      if (input !== undefined) set(column, input ? await refs.archiveId(input, field, createdBy, manager) : null);
    }
    let relatedResourceIds: number[] | undefined;
    if (dto.related_resources !== undefined) {
      const inline = dto.related_resources.filter((item) => !isRelatedResourceRef(item)) as RelatedResourceDto[];
      set(
        'relatedResources',
        inline.map((resource) => ({
          uri: resource.uri,
          description: resource.description ?? null,
          relation_type: resource.relation_type ?? null,
        })),
      );
      relatedResourceIds = await this.usableRelatedResources(dto.related_resources, caller, manager);
    }
    for (const [field, column] of [
      ['sampling_start_date', 'samplingStartDate'],
      ['sampling_end_date', 'samplingEndDate'],
      ['publish_date', 'publishDate'],
    ] as const) {
      const value = dto[field];
      if (value === undefined) continue;
      const date = value === null ? null : parseRegistryDate(value);
      // The DTO checked the form; never store a date that did not parse as NULL.
      if (date === undefined) throw ApiError.invalidField(field, `must be a date: ${REGISTRY_DATE_FORMS}`);
      set(column, date);
    }

    const merged = { ...existing, ...columns };
    const errors: FieldErrors = {};
    const ordered = (min: keyof Sample, max: keyof Sample, field: string) => {
      const low = merged[min] as number | Date | null | undefined;
      const high = merged[max] as number | Date | null | undefined;
      if (low !== null && low !== undefined && high !== null && high !== undefined && Number(low) > Number(high)) {
        errors[field] = [`must not be less than ${String(min).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`];
      }
    };
    ordered('numericAgeMin', 'numericAgeMax', 'numeric_age_max');
    ordered('depthMin', 'depthMax', 'depth_max');
    ordered('samplingStartDate', 'samplingEndDate', 'sampling_end_date');
    if (Object.keys(errors).length)
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);

    let collectorIds: number[] | undefined;
    if (dto.collectors !== undefined) collectorIds = await refs.collectorIds(dto.collectors, createdBy, manager);
    return { columns, collectorIds, relatedResourceIds };
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
    const usable = await this.relatedResources.existingIds(
      manager,
      refs.map((ref) => ref.id),
      anyCreator ? undefined : caller.user.userId,
    );
    const errors: FieldErrors = {};
    for (const ref of refs) {
      if (!usable.has(ref.id)) errors[`related_resources.${ref.index}.id`] = [`no related resource ${ref.id} of yours`];
    }
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
    return [...new Set(refs.map((ref) => ref.id))];
  }

  /**
   * A 400 for a deprecated material type (`for_registration` false) a write sends, naming the field
   * and where the current terms are listed. A value the sample already holds (a migrated sample
   * sent back as fetched) is not new, so it passes.
   */
  private async refuseRetiredMaterialTypes(
    dto: SampleInput,
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
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
  }

  private async resolveParent(
    value: string | null,
    caller: SampleCaller,
    manager: EntityManager,
    existing: Sample | undefined,
  ): Promise<number | null> {
    if (value === null) return null;
    const row = await this.visibleRowByIgsn(value, caller, manager);
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
      const refused = (await refusedParentLinks(this.samples, manager, [link])).get(existing.igsn);
      if (refused) throw ApiError.invalidField('parent_sample', refused);
    }
    return Number(row.id);
  }

  /** GET /api/samples/{igsn}/: 401 for a non-public sample without a token, 404 without view permission. */
  /** The sample as the caller may see it, and whether anyone may (which decides how it is cached). */
  async fetch(
    igsnValue: string,
    user: AuthenticatedUser | undefined,
  ): Promise<{ sample: SampleDto; isPublic: boolean }> {
    const row = await this.findVisibleRow(igsnValue, user);
    const caller = await this.policy.caller(user);
    const facts = accessFacts(row);
    return {
      sample: this.mapper.toDto(row, this.policy.canEdit(facts, caller)),
      isPublic: SampleAccessPolicy.isPublic(facts, this.clock.now()),
    };
  }

  /** The row behind an IGSN if the caller may see it; 401/404 otherwise. Exports use it too. */
  async findVisibleRow(igsnValue: string, user: AuthenticatedUser | undefined): Promise<SampleRow> {
    const suffix = this.igsn.parse(igsnValue);
    const row = suffix ? await this.samples.byIgsn(suffix) : undefined;
    if (!row) throw ApiError.notFound('Sample not found.');
    const caller = await this.policy.caller(user);
    switch (this.policy.visibility(accessFacts(row), caller, this.clock.now())) {
      case 'visible':
        return row;
      case 'needs-token':
        throw ApiError.unauthorized('This sample is not public; send a token with view permission.');
      case 'hidden':
        throw ApiError.notFound('Sample not found.');
      case 'gone':
        throw this.gone(row);
    }
  }

  /**
   * GET /api/samples/by-igsn/?igsn=…: what each IGSN (any accepted form) names for this caller, in
   * the order asked: the sample (200), 401 without a token for a sample that is not public, 403 when
   * it exists but the caller may not see it, 404 when unknown (also a sample deactivated before it
   * was ever public, to those who could not see it), 410 with a tombstone when deactivated.
   */
  async lookup(values: string[], user: AuthenticatedUser | undefined): Promise<SampleLookup[]> {
    const caller = await this.policy.caller(user);
    const suffixes = values.map((value) => this.igsn.parse(value));
    const rows = await this.samples.byIgsns([...new Set(suffixes.filter((suffix) => suffix !== undefined))]);
    const byIgsn = new Map(rows.map((row) => [row.igsn, row]));
    const now = this.clock.now();
    return values.map((igsn, index): SampleLookup => {
      const suffix = suffixes[index];
      const row = suffix === undefined ? undefined : byIgsn.get(suffix);
      if (!row) return { igsn, status: 404, message: 'Sample not found.' };
      switch (this.policy.visibility(accessFacts(row), caller, now)) {
        case 'visible':
          return { igsn, status: 200, data: this.mapper.toDto(row, this.policy.canEdit(accessFacts(row), caller)) };
        case 'needs-token':
          return { igsn, status: 401, message: 'This sample is not public; send a token with view permission.' };
        case 'hidden':
          return row.is_deactivated
            ? { igsn, status: 404, message: 'Sample not found.' }
            : { igsn, status: 403, message: 'You may not see this sample.' };
        case 'gone':
          return { igsn, status: 410, message: this.goneMessage(row), tombstone: this.mapper.toTombstone(row) };
      }
    });
  }

  private goneMessage(row: SampleRow): string {
    return `Sample ${this.igsn.toDoi(row.igsn)} was deactivated.`;
  }

  /** 410 for a deactivated sample: its tombstone, never its fields. */
  private gone(row: SampleRow): ApiError {
    return ApiError.gone(this.goneMessage(row), { tombstone: this.mapper.toTombstone(row) });
  }

  /** Locks the sample for a change the caller must be allowed to make (404 unseen, 403 seen but not editable). */
  private async lockEditable(manager: EntityManager, igsnValue: string, caller: SampleCaller): Promise<Sample> {
    const suffix = this.igsn.parse(igsnValue);
    const sample = suffix ? await this.samples.lockByIgsn(manager, suffix) : null;
    if (!sample || !this.policy.canView(sample, caller, this.clock.now())) throw ApiError.notFound('Sample not found.');
    if (!this.policy.canEdit(sample, caller)) throw ApiError.forbidden('You may not edit this sample.');
    return sample;
  }

  /** PATCH /api/samples/{igsn}/: lists sent replace lists; igsn and registry_code cannot change. */
  async update(
    igsnValue: string,
    dto: UpdateSampleDto,
    user: AuthenticatedUser,
    extras: SampleWriteExtras = {},
  ): Promise<SampleDto> {
    const caller = (await this.policy.caller(user)) as SampleCaller;
    let owner: { id: number; userOwnerId: number | null } | undefined;
    const id = await this.dataSource
      .transaction(async (manager) => {
        const sample = await this.lockEditable(manager, igsnValue, caller);
        owner = { id: sample.id, userOwnerId: sample.userOwnerId };
        const write = await this.prepareUpdate(sample, withAppended(sample, dto, extras.append), caller, manager, {
          allowRetiredMaterialTypes: extras.allowRetiredMaterialTypes,
        });
        if (extras.legacySampleType !== undefined) write.columns.legacySampleType = extras.legacySampleType;
        await this.applyUpdate(manager, sample, write);
        return sample.id;
      })
      .catch(async (error: unknown) => {
        throw await this.externalIdViolation(error, owner?.userOwnerId ?? null, dto.external_sample_id, owner?.id);
      });
    return this.readForCaller(id, caller);
  }

  /**
   * Validates a partial update of `sample` (which the caller may edit) into the columns to set.
   * Used by PATCH and by batch uploads that name existing IGSNs (an edited export re-uploaded).
   */
  async prepareUpdate(
    sample: Sample,
    dto: UpdateSampleDto,
    caller: SampleCaller,
    manager: EntityManager,
    options: Pick<PrepareOptions, 'references' | 'completeReservedAs' | 'allowRetiredMaterialTypes'> = {},
  ): Promise<ResolvedWrite> {
    dto = withCanonicalFieldNames(dto);
    const errors: FieldErrors = {};
    if (dto.igsn !== undefined && this.igsn.parse(dto.igsn) !== sample.igsn) errors.igsn = ['cannot be changed'];
    for (const field of ['registry_code', 'sesar_code'] as const) {
      const value = dto[field];
      if (value !== undefined && value.toUpperCase() !== sample.registryCode) errors[field] = ['cannot be changed'];
    }
    for (const field of ['latitude', 'longitude'] as const) {
      if (dto[field] === null && sample[field] !== null) errors[field] = ['cannot be cleared once set'];
    }
    if (dto.name === null || dto.object_type === null) {
      errors[dto.name === null ? 'name' : 'object_type'] = ['cannot be cleared'];
    }
    if (dto.is_draft === true && sample.metadataStoreStatus !== 'draft' && sample.metadataStoreStatus !== 'reserved') {
      errors.is_draft = ['a sample that is not a draft cannot become one again'];
    }
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }

    const resolved = await this.resolveFields(dto, caller, manager, sample, options.references ?? this.references);
    if (!options.allowRetiredMaterialTypes) {
      await this.refuseRetiredMaterialTypes(dto, sample, options.references ?? this.references, manager);
    }
    const columns: Partial<Sample> = { ...resolved.columns, updatedAt: this.clock.now() };
    const externalId = columns.externalSampleId;
    if (externalId && externalId !== sample.externalSampleId && sample.userOwnerId !== null) {
      await this.refuseTakenExternalId(manager, sample.userOwnerId, externalId, sample.id);
    }
    if (sample.metadataStoreStatus === 'reserved') {
      const asDraft = dto.is_draft === true || options.completeReservedAs === 'draft';
      Object.assign(columns, this.completedReservation(sample, columns, asDraft, options.completeReservedAs));
      return { columns, collectorIds: resolved.collectorIds, relatedResourceIds: resolved.relatedResourceIds };
    }
    if (dto.is_draft === false && sample.metadataStoreStatus === 'draft') {
      const merged = { ...sample, ...columns };
      const missing = (['latitude', 'longitude'] as const).filter((field) => merged[field] === null);
      if (missing.length) {
        throw ApiError.badRequest(
          `Validation failed: ${missing.join(', ')}.`,
          Object.fromEntries(missing.map((field) => [field, ['is required to publish a sample']])),
        );
      }
      if (sample.batchId !== null) {
        // A batch's draft goes where the batch's submit-for-review sends it: curation cannot be skipped.
        columns.metadataStoreStatus = 'pending-review';
      } else {
        columns.metadataStoreStatus = 'published';
        columns.publishDate = merged.publishDate ?? this.clock.now();
      }
    }
    return { columns, collectorIds: resolved.collectorIds, relatedResourceIds: resolved.relatedResourceIds };
  }

  /**
   * A reserved sample written to (PATCH, a batch row naming its IGSN, legacy XML update) is completed:
   * it becomes a draft (`is_draft: true`) or is published, by the rules of a registration — an object
   * type in both cases, coordinates to publish. 400 naming what is missing; it never stays half-reserved.
   */
  private completedReservation(
    sample: Sample,
    columns: Partial<Sample>,
    asDraft: boolean,
    completeAs?: StoreStatus,
  ): Partial<Sample> {
    const merged = { ...sample, ...columns };
    const errors: FieldErrors = {};
    if (merged.objectTypeId === null) errors.object_type = ['is required to complete a reserved sample'];
    if (!asDraft) {
      for (const field of ['latitude', 'longitude'] as const) {
        if (merged[field] === null) errors[field] = ['is required to publish a sample'];
      }
    } else if ((merged.latitude === null) !== (merged.longitude === null)) {
      errors[merged.latitude === null ? 'latitude' : 'longitude'] = ['give both latitude and longitude, or neither'];
    }
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
    if (asDraft) return { metadataStoreStatus: 'draft' };
    if (completeAs === 'pending-review') return { metadataStoreStatus: 'pending-review' };
    return { metadataStoreStatus: 'published', publishDate: merged.publishDate ?? this.clock.now() };
  }

  /** Writes a prepared update; a collectors list that was sent replaces the stored one. */
  async applyUpdate(manager: EntityManager, sample: Sample, write: ResolvedWrite): Promise<void> {
    await this.samples.update(manager, sample.id, write.columns, write.collectorIds);
    if (write.relatedResourceIds !== undefined) {
      await this.relatedResources.replaceSampleLinks(manager, sample.id, write.relatedResourceIds);
    }
  }

  /**
   * POST /api/samples/{igsn}/deactivate/: takes effect at once (no curator step) for whoever may
   * edit the sample; both lookups answer 410 from then on.
   */
  async deactivate(igsnValue: string, dto: SampleDeactivationDto, user: AuthenticatedUser): Promise<SampleDto> {
    const caller = (await this.policy.caller(user)) as SampleCaller;
    const id = await this.dataSource.transaction(async (manager) => {
      const sample = await this.lockEditable(manager, igsnValue, caller);
      const { reason, comment, duplicates } = await this.deactivation(dto, sample, caller, manager);
      const now = this.clock.now();
      await this.samples.update(manager, sample.id, {
        isDeactivated: true,
        deactivateReason: reason,
        deactivateComment: comment,
        deactivateDuplicateIgsns: duplicates,
        deactivatedAt: now,
        updatedAt: now,
      });
      return sample.id;
    });
    const [row] = await this.samples.byIds([id]);
    return this.mapper.toDto(row, false);
  }

  /**
   * The reason, comment and duplicates of a deactivation body. SESAR2's shape (`deactivate_reason`)
   * requires `other_reason` for `other` and `duplicate_igsns` for `duplicate igsn`; ours keeps
   * `{reason, comment?}` as it was. Each duplicate must be another sample the caller may see.
   */
  private async deactivation(
    dto: SampleDeactivationDto,
    sample: Sample,
    caller: SampleCaller,
    manager: EntityManager,
  ): Promise<{ reason: DeactivateReason; comment: string | null; duplicates: string[] | null }> {
    const errors: FieldErrors = {};
    if (dto.reason !== undefined && dto.deactivate_reason !== undefined && dto.reason !== dto.deactivate_reason) {
      errors.deactivate_reason = ['reason and deactivate_reason disagree; send one'];
    }
    const reason = dto.deactivate_reason ?? dto.reason;
    if (reason === undefined) errors.reason = ['is required (or deactivate_reason)'];
    const sesar2 = dto.deactivate_reason !== undefined;
    if (sesar2 && reason === 'other' && !dto.other_reason)
      errors.other_reason = ['is required when the reason is other'];
    const duplicates = dto.duplicate_igsns ?? [];
    if (duplicates.length && reason !== 'duplicate igsn') {
      errors.duplicate_igsns = ['may be given only with the reason duplicate igsn'];
    } else if (sesar2 && reason === 'duplicate igsn' && !duplicates.length) {
      errors.duplicate_igsns = ['is required when the reason is duplicate igsn'];
    }
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
    const suffixes: string[] = [];
    for (const [index, value] of duplicates.entries()) {
      const row = await this.visibleRowByIgsn(value, caller, manager);
      if (!row) errors[`duplicate_igsns.${index}`] = [`no sample with IGSN ${value} is visible to you`];
      else if (row.igsn === sample.igsn) errors[`duplicate_igsns.${index}`] = ['cannot be the sample itself'];
      else suffixes.push(row.igsn);
    }
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
    const comment = [dto.other_reason, dto.comment].filter(Boolean).join(TEXT_APPEND_SEPARATOR) || null;
    return { reason: reason as DeactivateReason, comment, duplicates: suffixes.length ? [...new Set(suffixes)] : null };
  }

  private async readForCaller(id: number, caller: SampleCaller | undefined): Promise<SampleDto> {
    const [row] = await this.samples.byIds([id]);
    return this.mapper.toDto(row, this.policy.canEdit(accessFacts(row), caller));
  }

  /** The sample an IGSN (any form) names when the caller may see it; undefined alike when hidden or missing. */
  private async visibleRowByIgsn(
    value: string,
    caller: SampleCaller | undefined,
    manager?: EntityManager,
  ): Promise<SampleRow | undefined> {
    const suffix = this.igsn.parse(value);
    const row = suffix === undefined ? undefined : await this.samples.byIgsn(suffix, manager);
    return row && this.policy.canView(accessFacts(row), caller, this.clock.now()) ? row : undefined;
  }
}
