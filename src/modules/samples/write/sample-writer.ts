import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { Clock } from '../../../core/clock';
import { ApiError } from '../../../core/http/api-error';
import { CreateSampleDto, UpdateSampleDto } from '../dto/sample-write.dto';
import { SampleDto } from '../dto/sample.dto';
import { IgsnMinter, MintOptions } from '../igsn-minter';
import { IgsnService, namespaceCapacity } from '../igsn.service';
import { RelatedResourceRepository } from '../related-resources/related-resource.repository';
import { SampleAccessPolicy, SampleCaller } from '../sample-access.policy';
import { withCanonicalFieldNames } from '../sample-field-aliases';
import { SampleReader } from '../sample-reader';
import { SampleReferenceLookups, SampleReferences } from '../sample-references';
import { SampleRecord, SampleWriteRepository, isForeignKeyViolation } from '../sample-write.repository';
import { Sample, StoreStatus } from '../sample.entity';
import { KnownReferenceLookup, KnownReferences, KnownReferencesFirst, codeOnly } from './known-references';
import { SampleFieldResolver } from './sample-field-resolver';
import { CHANNEL_RULES, JSON_WRITE, ResolvedWrite, SampleWriteContext } from './sample-write.context';
import { SampleWriteConflicts } from './sample-write-conflicts';
import {
  completedReservation,
  publishedDraft,
  refuseImmutableChanges,
  refuseIncompleteNewSample,
  withAppended,
} from './sample-write-rules';

/** How often an insert whose minted IGSN was taken meanwhile is tried with freshly minted ones. */
const MINT_ATTEMPTS = 5;

/** What a bulk insert (SampleWriter.insertMany) adds to every row, and which of its writes it may mint again. */
export interface BulkInsertOptions {
  /** Columns set on every row (a batch's id). */
  extra?: Partial<Sample>;
  /** The writes whose IGSN was minted, not supplied: new ones are minted for them if theirs was taken meanwhile. */
  minted?: ResolvedWrite[];
  mintOptions?: MintOptions;
}

/** A record's values under the columns' database names (NULL for a column it leaves unset). */
function rowOf(record: object, columns: ColumnMetadata[]): SampleRecord {
  const values = record as Record<string, unknown>;
  const row: SampleRecord = {};
  for (const column of columns) row[column.databaseName] = values[column.propertyName] ?? null;
  return row;
}

/**
 * The one write pipeline of samples — prepare → resolve references → mint → insert or update — for
 * the JSON API, legacy XML and batches (single and bulk) alike. The channels differ only in the
 * SampleWriteContext they pass; a bulk write calls the steps itself (prepareNew, mintInto,
 * insertMany, prepareUpdate, applyUpdate) inside its own transaction.
 */
@Injectable()
export class SampleWriter {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sampleWriteRepository: SampleWriteRepository,
    private readonly relatedResourcesRepository: RelatedResourceRepository,
    private readonly fields: SampleFieldResolver,
    private readonly conflicts: SampleWriteConflicts,
    private readonly reader: SampleReader,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly minter: IgsnMinter,
    private readonly references: SampleReferences,
    private readonly clock: Clock,
    private readonly knownReferences: KnownReferenceLookup,
  ) {}

  /** POST /api/samples/ (and legacy XML's register): publishes unless `is_draft: true`. */
  async register(dto: CreateSampleDto, user: AuthenticatedUser, context = JSON_WRITE): Promise<SampleDto> {
    if (!user.uploadPermission && !user.isStaff && !user.isAdmin) {
      throw ApiError.forbidden('Registering samples requires upload permission.');
    }
    const caller = (await this.policy.caller(user)) as SampleCaller;
    const status: StoreStatus = dto.is_draft ? 'draft' : 'published';
    const known = await this.knownReferences.lookUp(dto, caller);
    const register = async (manager: EntityManager, found?: KnownReferences) => {
      const write = await this.prepareNew(dto, caller, status, manager, context, found);
      return this.insert(manager, write, { minted: dto.igsn === undefined });
    };
    const id = await this.registerKnown(known, register)
      .then((done) => done ?? this.dataSource.transaction((manager) => register(manager, known)))
      .catch(async (error: unknown) => {
        throw await this.conflicts.externalIdViolation(error, user.userId, dto.external_sample_id);
      });
    return this.reader.readForCaller(id, caller);
  }

  /**
   * A registration whose references were all found (`known.complete`) writes nothing but the sample:
   * its one insert statement is atomic, so it needs no transaction around it. A reference removed
   * since it was found (a foreign-key violation) sends the write the full way, in a transaction, with
   * the registry code found. Undefined when the full way is to be taken.
   */
  private async registerKnown(
    known: KnownReferences | undefined,
    register: (manager: EntityManager, found?: KnownReferences) => Promise<number>,
  ): Promise<number | undefined> {
    if (!known?.complete) return undefined;
    try {
      return await register(this.dataSource.manager, known);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      return this.dataSource.transaction((manager) => register(manager, codeOnly(known)));
    }
  }

  /** PATCH /api/samples/{igsn}/ (and legacy XML's update): lists sent replace lists; igsn and registry_code cannot change. */
  async update(
    igsnValue: string,
    dto: UpdateSampleDto,
    user: AuthenticatedUser,
    context = JSON_WRITE,
  ): Promise<SampleDto> {
    const caller = (await this.policy.caller(user)) as SampleCaller;
    let owner: { id: number; userOwnerId: number | null } | undefined;
    const id = await this.dataSource
      .transaction(async (manager) => {
        const sample = await this.lockEditable(manager, igsnValue, caller);
        owner = { id: sample.id, userOwnerId: sample.userOwnerId };
        await this.applyUpdate(manager, sample, await this.prepareUpdate(sample, dto, caller, manager, context));
        return sample.id;
      })
      .catch(async (error: unknown) => {
        throw await this.conflicts.externalIdViolation(
          error,
          owner?.userOwnerId ?? null,
          dto.external_sample_id,
          owner?.id,
        );
      });
    return this.reader.readForCaller(id, caller);
  }

  /** Locks the sample for a change the caller must be allowed to make (404 unseen, 403 seen but not editable). */
  async lockEditable(manager: EntityManager, igsnValue: string, caller: SampleCaller): Promise<Sample> {
    const suffix = this.igsnService.parse(igsnValue);
    const sample = suffix ? await this.sampleWriteRepository.lockByIgsn(manager, suffix) : null;
    if (!sample || !this.policy.canView(sample, caller, this.clock.now())) throw ApiError.notFound('Sample not found.');
    if (!this.policy.canEdit(sample, caller)) throw ApiError.forbidden('You may not edit this sample.');
    return sample;
  }

  /**
   * Prepares a register body into the columns of a new sample in `status`: its registry code, its
   * references resolved, the rules of a new sample checked, a supplied IGSN checked (one left out
   * is minted by the insert; a batch mints and checks for all its rows at once instead).
   */
  async prepareNew(
    dto: CreateSampleDto,
    caller: SampleCaller,
    status: StoreStatus,
    manager: EntityManager,
    context: SampleWriteContext = JSON_WRITE,
    known?: KnownReferences,
  ): Promise<ResolvedWrite> {
    dto = withCanonicalFieldNames(dto);
    const refs = this.referencesOf(context, known);
    const { code, teamOwnerId } = await this.registryCodeOf(dto, caller, manager, refs);
    const resolved = await this.resolveReferences(dto, caller, manager, undefined, context, known);
    if (resolved.columns.externalSampleId && CHANNEL_RULES[context.channel].checksExternalIdOfNew) {
      await this.conflicts.refuseTakenExternalId(manager, caller.user.userId, resolved.columns.externalSampleId);
    }
    refuseIncompleteNewSample(resolved.columns, status);
    const suffix = await this.igsnOfNew(dto, code, manager, context);
    const now = this.clock.now();
    // Completed in place: the resolved write is this call's own (a batch prepares tens of thousands).
    Object.assign(resolved.columns, {
      igsn: suffix,
      registryCode: code,
      metadataStoreStatus: status,
      publishDate: resolved.columns.publishDate ?? (status === 'published' ? now : null),
      userOwnerId: caller.user.userId,
      teamOwnerId,
      createdBy: caller.user.userId,
      createdAt: now,
      updatedAt: now,
      ...this.legacyColumns(context),
    });
    return resolved;
  }

  /**
   * Prepares a partial update of `sample` (which the caller may edit) into the columns to set:
   * appended text joined, what may not change refused, references resolved, and the store state
   * the write moves the sample to (a reserved sample completed, a draft published).
   */
  async prepareUpdate(
    sample: Sample,
    dto: UpdateSampleDto,
    caller: SampleCaller,
    manager: EntityManager,
    context: SampleWriteContext = JSON_WRITE,
  ): Promise<ResolvedWrite> {
    if (context.channel === 'xml' && context.append) dto = withAppended(sample, dto, context.append);
    dto = withCanonicalFieldNames(dto);
    refuseImmutableChanges(sample, dto, dto.igsn === undefined ? undefined : this.igsnService.parse(dto.igsn));
    const resolved = await this.resolveReferences(dto, caller, manager, sample, context);
    const now = this.clock.now();
    const columns: Partial<Sample> = { ...resolved.columns, updatedAt: now, ...this.legacyColumns(context) };
    const externalId = columns.externalSampleId;
    if (externalId && externalId !== sample.externalSampleId && sample.userOwnerId !== null) {
      await this.conflicts.refuseTakenExternalId(manager, sample.userOwnerId, externalId, sample.id);
    }
    Object.assign(columns, this.storeStateChange(sample, dto, columns, context, now));
    return { ...resolved, columns };
  }

  /**
   * The prepared new samples (prepareNew in the batch channel, which leaves this check out) whose
   * external id another active sample of their owner carries, each with its 409: one statement per
   * owner instead of one per sample.
   */
  async takenExternalIds(manager: EntityManager, writes: ResolvedWrite[]): Promise<Map<ResolvedWrite, ApiError>> {
    const byOwner = new Map<number, ResolvedWrite[]>();
    for (const write of writes) {
      const { userOwnerId, externalSampleId } = write.columns;
      if (!externalSampleId || userOwnerId === null || userOwnerId === undefined) continue;
      const owned = byOwner.get(userOwnerId);
      if (owned) owned.push(write);
      else byOwner.set(userOwnerId, [write]);
    }
    const refused = new Map<ResolvedWrite, ApiError>();
    for (const [ownerId, owned] of byOwner) {
      const ids = owned.map((write) => write.columns.externalSampleId as string);
      const taken = await this.conflicts.takenExternalIds(manager, ownerId, ids);
      for (const write of owned) {
        const error = taken.get(write.columns.externalSampleId as string);
        if (error) refused.set(write, error);
      }
    }
    return refused;
  }

  /** Writes a prepared update; a collectors list that was sent replaces the stored one. */
  async applyUpdate(manager: EntityManager, sample: Sample, write: ResolvedWrite): Promise<void> {
    await this.sampleWriteRepository.update(manager, sample.id, write.columns, write.collectorIds);
    if (write.relatedResourceIds !== undefined) {
      await this.relatedResourcesRepository.replaceSampleLinks(manager, sample.id, write.relatedResourceIds);
    }
  }

  /** Mints an IGSN into each write, in one block per registry code. */
  async mintInto(manager: EntityManager, writes: ResolvedWrite[], options: MintOptions = {}): Promise<void> {
    const byCode = new Map<string, ResolvedWrite[]>();
    for (const write of writes) {
      const code = write.columns.registryCode as string;
      const group = byCode.get(code);
      if (group) group.push(write);
      else byCode.set(code, [write]);
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
   * new ids in input order. For batch registration and reservations. The minter skips IGSNs already
   * stored, but one supplied by a registration that commits between minting and inserting collides:
   * the insert skips that row (no savepoint, so other steps may share the transaction's connection
   * meanwhile), and the writes in `minted` that were skipped get new IGSNs and go in again, up to
   * MINT_ATTEMPTS times. A supplied IGSN found taken is a 409.
   */
  async insertMany(
    manager: EntityManager,
    writes: ResolvedWrite[],
    options: BulkInsertOptions = {},
  ): Promise<number[]> {
    if (!writes.length) return [];
    const { extra = {}, minted = [], mintOptions = {} } = options;
    const mayMintAgain = new Set(minted);
    const idOf = new Map<ResolvedWrite, number>();
    let remaining = writes;
    for (let attempt = 1; remaining.length; attempt++) {
      const { rows, columns, constants } = this.bulkRows(manager, remaining, extra);
      const inserted = await this.sampleWriteRepository.insertMany(manager, rows, columns, constants);
      // RETURNING order is not guaranteed: rows are matched back by their (unique) IGSN, each once.
      const skipped = remaining.filter((write) => {
        const igsn = write.columns.igsn as string;
        const id = inserted.get(igsn);
        if (id === undefined) return true;
        inserted.delete(igsn);
        idOf.set(write, id);
        return false;
      });
      if (!skipped.length) break;
      const taken = skipped.find((write) => !mayMintAgain.has(write));
      if (taken || attempt >= MINT_ATTEMPTS)
        throw this.conflicts.duplicateIgsn((taken ?? skipped[0]).columns.igsn ?? '');
      await this.mintInto(manager, skipped, mintOptions);
      remaining = skipped;
    }
    const ids = writes.map((write) => idOf.get(write) as number);
    await this.sampleWriteRepository.insertCollectors(
      manager,
      writes.map((write, index) => ({ sampleId: ids[index], collectorIds: write.collectorIds ?? [] })),
    );
    await this.relatedResourcesRepository.linkEach(
      manager,
      writes.map((write, index) => ({ sampleId: ids[index], resourceIds: write.relatedResourceIds ?? [] })),
    );
    return ids;
  }

  /**
   * The rows of a bulk insert under their database names: each `{ ...defaults, ...write.columns,
   * ...extra }`, read in place rather than copied. A column holding the same value in every row
   * (the batch, the owner, the registry code, most vocabulary columns of a batch) is sent once, in
   * `constants`, not once a row; a null is left out of its row: the repository stores NULL for a
   * column a row lacks, and most of a batch row's columns are empty (less JSON to build, send and
   * parse).
   */
  private bulkRows(
    manager: EntityManager,
    writes: ResolvedWrite[],
    extra: Partial<Sample>,
  ): { rows: SampleRecord[]; columns: string[]; constants: SampleRecord } {
    const now = this.clock.now();
    const defaults: Partial<Sample> = {
      materialTypes: [],
      otherNames: [],
      relatedResources: [],
      isDeactivated: false,
      createdAt: now,
      updatedAt: now,
    };
    const columns = this.columnsOf(manager, [defaults, ...writes.map((write) => write.columns), extra]);
    const valueOf = (write: ResolvedWrite, propertyName: string): unknown => {
      const source = propertyName in extra ? extra : propertyName in write.columns ? write.columns : defaults;
      return (source as Record<string, unknown>)[propertyName] ?? undefined;
    };
    const constants: SampleRecord = {};
    const varying: ColumnMetadata[] = [];
    for (const column of columns) {
      const first = valueOf(writes[0], column.propertyName);
      // The same value: a primitive equal, or the same object (a default's, the extra's).
      if (writes.every((write) => valueOf(write, column.propertyName) === first)) {
        if (first !== undefined) constants[column.databaseName] = first;
      } else varying.push(column);
    }
    const rows: SampleRecord[] = writes.map((write) => {
      const row: SampleRecord = {};
      for (const { propertyName, databaseName } of varying) {
        const value = valueOf(write, propertyName);
        if (value !== undefined) row[databaseName] = value;
      }
      return row;
    });
    return { rows, columns: columns.map((column) => column.databaseName), constants };
  }

  /**
   * Inserts one prepared sample with its collectors. A `minted` sample (the body sent no IGSN) gets
   * its IGSN minted by the insert statement itself where the code allows (IgsnMinter.mintsInInsert),
   * else by the minter first. A supplied IGSN taken meanwhile (a race) is a 409; a minted one is
   * minted again, with the look for taken values (the body asked for none, so it gets no 409), up to
   * MINT_ATTEMPTS times.
   */
  private async insert(manager: EntityManager, write: ResolvedWrite, options: { minted: boolean }): Promise<number> {
    const code = write.columns.registryCode as string;
    if (options.minted && !this.minter.mintsInInsert(code)) await this.mintInto(manager, [write], { unchecked: true });
    for (let attempt = 1; ; attempt++) {
      // Columns left undefined are left out, so the table's defaults apply to them.
      const given = Object.fromEntries(Object.entries(write.columns).filter(([, value]) => value !== undefined));
      const row = rowOf(given, this.columnsOf(manager, [given]));
      const mintUnder = options.minted && write.columns.igsn === undefined ? code : undefined;
      const { id, counter } = await this.sampleWriteRepository.insertOne(
        manager,
        row,
        write.collectorIds ?? [],
        mintUnder,
      );
      if (counter !== undefined && counter > namespaceCapacity(code)) throw this.minter.exhausted(code);
      if (id !== undefined) {
        await this.relatedResourcesRepository.link(manager, [id], write.relatedResourceIds ?? []);
        return id;
      }
      if (!options.minted || attempt >= MINT_ATTEMPTS) throw this.conflicts.duplicateIgsn(write.columns.igsn ?? '');
      await this.mintInto(manager, [write]);
    }
  }

  /** The sample columns (but the id) that any of `records` sets, by property name. */
  private columnsOf(manager: EntityManager, records: object[]): ColumnMetadata[] {
    const names = new Set<string>();
    for (const record of records) for (const name in record) names.add(name);
    return manager.connection
      .getMetadata(Sample)
      .columns.filter((column) => names.has(column.propertyName) && column.propertyName !== 'id');
  }

  /**
   * The lookups a write resolves its references with: a batch's memoized copy, or the shared ones;
   * what a registration found already (`known`) first.
   */
  private referencesOf(context: SampleWriteContext, known?: KnownReferences): SampleReferenceLookups {
    const lookups = context.channel === 'batch' ? context.references : this.references;
    return known ? new KnownReferencesFirst(lookups, known) : lookups;
  }

  /** The registry code a new sample is registered under (the caller's when none is sent) and its team. */
  private async registryCodeOf(
    dto: CreateSampleDto,
    caller: SampleCaller,
    manager: EntityManager,
    refs: SampleReferenceLookups,
  ): Promise<{ code: string; teamOwnerId: number | null }> {
    if (dto.registry_code && dto.sesar_code && dto.registry_code.toUpperCase() !== dto.sesar_code.toUpperCase()) {
      throw ApiError.invalidField('registry_code', 'registry_code and sesar_code disagree; send one');
    }
    return refs.registryCode(dto.registry_code ?? dto.sesar_code, caller, manager);
  }

  /** The "resolve references" step, with the channel's rule on deprecated material types. */
  private async resolveReferences(
    dto: UpdateSampleDto,
    caller: SampleCaller,
    manager: EntityManager,
    existing: Sample | undefined,
    context: SampleWriteContext,
    known?: KnownReferences,
  ): Promise<ResolvedWrite> {
    const refs = this.referencesOf(context, known);
    const resolved = await this.fields.resolve(dto, caller, manager, existing, refs);
    if (!CHANNEL_RULES[context.channel].allowsRetiredMaterialTypes) {
      await this.fields.refuseRetiredMaterialTypes(dto, existing, refs, manager);
    }
    return resolved;
  }

  /**
   * The "mint" step of a new sample: a supplied IGSN parsed and checked (outside another code's
   * namespace, not registered yet), or one minted — each where the channel does it per sample.
   */
  private async igsnOfNew(
    dto: CreateSampleDto,
    code: string,
    manager: EntityManager,
    context: SampleWriteContext,
  ): Promise<string | undefined> {
    const rules = CHANNEL_RULES[context.channel];
    if (dto.igsn === undefined) return undefined; // minted with the insert (a batch: in blocks)
    const suffix = this.igsnService.parseSupplied(dto.igsn, code);
    const claimant = await this.minter.namespaceClaimant(manager, code, suffix);
    if (claimant) throw ApiError.invalidField('igsn', `lies in the namespace of registry code ${claimant}`);
    if (rules.checksSuppliedIgsn && (await this.sampleWriteRepository.igsnExists(manager, suffix))) {
      throw this.conflicts.duplicateIgsn(suffix);
    }
    return suffix;
  }

  /** What legacy XML keeps on the sample beside the JSON fields: the SESAR 1.0 sample type. */
  private legacyColumns(context: SampleWriteContext): Partial<Sample> {
    if (context.channel !== 'xml' || context.legacySampleType === undefined) return {};
    return { legacySampleType: context.legacySampleType };
  }

  /** The store state an update moves the sample to: a reserved sample completed, a draft published. */
  private storeStateChange(
    sample: Sample,
    dto: UpdateSampleDto,
    columns: Partial<Sample>,
    context: SampleWriteContext,
    now: Date,
  ): Partial<Sample> {
    if (sample.metadataStoreStatus === 'reserved') {
      const completeAs = context.channel === 'batch' ? context.completeReservedAs : undefined;
      return completedReservation(sample, columns, dto.is_draft === true || completeAs === 'draft', completeAs, now);
    }
    if (dto.is_draft === false && sample.metadataStoreStatus === 'draft') return publishedDraft(sample, columns, now);
    return {};
  }
}
