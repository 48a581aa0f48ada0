import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { validateBuiltBody } from '../../core/http/validation';
import { AccountsService } from '../accounts/accounts.service';
import { BackgroundJobsService, JobCancelledError } from '../background-jobs/background-jobs.service';
import { boundJobMessage } from '../background-jobs/job-message';
import { FilesService } from '../files/files.service';
import { CreateSampleDto, UpdateSampleDto } from '../samples/dto/sample-write.dto';
import { MintOptions } from '../samples/igsn-minter';
import { IgsnService } from '../samples/igsn.service';
import { SampleAccessPolicy, SampleCaller } from '../samples/sample-access.policy';
import { Sample, StoreStatus } from '../samples/sample.entity';
import { SampleReferences } from '../samples/sample-references';
import { DEFAULT_JOB_OPTIONS } from '../../core/queue/queue-names';
import { SampleWriteRepository } from '../samples/sample-write.repository';
import { ObjectTypeResolver } from '../vocabularies/object-type.resolver';
import { ResolvedWrite } from '../samples/write/sample-write.context';
import { SampleWriter } from '../samples/write/sample-writer';
import { BatchHistory } from './batch-history.entity';
import { BatchHistoryRepository } from './batch-history.repository';
import { BatchParentLinks } from './batch-parent-links';
import { RowDefaults, rowToSampleBody } from './batch-row.mapper';
import { SampleReferenceLookups } from '../samples/sample-references';
import { BatchBudgets, BatchWorkbook, BatchWorkbookRefused, CellValue } from './batch-workbook';
import { MAX_BATCH_ROWS } from './xlsx-inspection';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { privateWorkDir } from '../../core/files/private-temp-dir';

export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PROGRESS_EVERY = 500;
const INSERT_CHUNK = 1000;
const ERROR_SAMPLE_LIMIT = 100;

/** The batch is invalid: the job fails for good (no retry) with this message and report. */
class BatchRejected extends Error {
  constructor(
    message: string,
    readonly errorsByRow = new Map<number, string>(),
  ) {
    super(message);
  }
}

function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const body = error.getResponse() as { message: string; errors: Record<string, string[]> };
    const fields = Object.entries(body.errors);
    return fields.length
      ? fields.map(([field, messages]) => `${field}: ${messages.join('; ')}`).join(' | ')
      : body.message;
  }
  throw error;
}

interface PreparedRow {
  rowNumber: number;
  write: ResolvedWrite;
}

/** A row naming an IGSN that exists: an update of that sample (an edited export re-uploaded). */
interface PreparedUpdate extends PreparedRow {
  sample: Sample;
}

/** A new sample's row checked without the database, waiting to be prepared. */
interface CheckedNewRow {
  dto: CreateSampleDto;
  /** Its write once prepared (the parent link reads the IGSN from it). */
  written: { write?: ResolvedWrite };
}

/**
 * The worker's batch registration: every row is checked with the same rules as POST
 * /api/samples/ (the validation pipe's checks, then SampleWriter.prepareNew with draft rules when
 * save_as_draft). All or nothing: one bad row fails the batch with an error report; otherwise all
 * samples are inserted in one transaction together with the job's completion, so a crash leaves
 * nothing half-written and a re-run after a crash completes exactly once.
 */
@Injectable()
export class BatchRegistrationService {
  private readonly logger = new Logger(BatchRegistrationService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly batches: BatchHistoryRepository,
    private readonly jobs: BackgroundJobsService,
    private readonly files: FilesService,
    private readonly sampleWriter: SampleWriter,
    private readonly sampleWrites: SampleWriteRepository,
    private readonly references: SampleReferences,
    private readonly igsn: IgsnService,
    private readonly policy: SampleAccessPolicy,
    private readonly accounts: AccountsService,
    private readonly objectTypes: ObjectTypeResolver,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  private budgets(): BatchBudgets {
    return {
      maxRows: MAX_BATCH_ROWS,
      maxCells: this.config.batches.maxCells,
      maxInflatedBytes: this.config.batches.maxInflatedBytes,
    };
  }

  /** Runs one job; returns quietly when there is nothing (left) to do. */
  async run(jobId: string): Promise<void> {
    const job = await this.jobs.start(jobId);
    if (!job) return;
    const attempt = job.attempts;
    const batchId = Number(job.payload.batch_id);
    const batch = await this.batches.findById(batchId);
    const upload = batch?.fileId ? await this.files.read(batch.fileId, this.clock.now()) : undefined;
    if (!batch || !upload) {
      await this.jobs.fail(jobId, 'The uploaded file is no longer available.');
      return;
    }
    let workbook: BatchWorkbook | undefined;
    try {
      await this.uploader(batch); // before the work of reading the file
      workbook = await this.readWorkbook(upload.content, attempt);
      await this.process(jobId, attempt, batch, workbook, job.payload);
      // A batch may grow the table by tens of thousands of rows at once: the next search must not
      // be planned on statistics that describe the table before it.
      await this.sampleWrites.refreshStatistics(`batch ${batch.id}`);
    } catch (error) {
      if (error instanceof BatchRejected) {
        let resultFileId: string | null = null;
        if (error.errorsByRow.size && workbook) {
          const report = await this.files.store({
            filename: `${(batch.filename ?? 'batch.xlsx').replace(/\.xlsx$/i, '')}-errors.xlsx`,
            contentType: XLSX_CONTENT_TYPE,
            content: await workbook.errorReport(error.errorsByRow),
            ownerUserId: job.userId,
          });
          resultFileId = report.id;
        }
        const errors = [...error.errorsByRow.entries()]
          .slice(0, ERROR_SAMPLE_LIMIT)
          .map(([row, message]) => ({ row, message: boundJobMessage(message) }));
        await this.jobs.fail(jobId, error.message, {
          result: { error_count: error.errorsByRow.size, errors },
          resultFileId,
        });
        return;
      }
      if (error instanceof JobCancelledError) return; // rolled back: cancelled, or a newer attempt owns the job
      throw error; // unexpected: BullMQ retries with back-off
    } finally {
      await workbook?.dispose();
    }
  }

  /** The upload, streamed into a work file within the budgets; a refusal fails the job for good. */
  private async readWorkbook(content: Buffer, attempt: number): Promise<BatchWorkbook> {
    try {
      return await BatchWorkbook.read(content, this.budgets(), await privateWorkDir());
    } catch (error) {
      if (error instanceof BatchWorkbookRefused) throw new BatchRejected(error.message);
      this.logger.warn(`Unreadable batch workbook (attempt ${attempt}): ${(error as Error).stack}`);
      // Not a refusal of the file: the reader failed in a way the inspection did not foresee, which
      // may be passing (the work file, the disk). Earlier attempts are retried by the queue; the
      // last one fails the batch for good.
      if (attempt < (DEFAULT_JOB_OPTIONS.attempts ?? 1)) throw error;
      throw new BatchRejected('The workbook could not be read; it may be damaged.');
    }
  }

  private async process(
    jobId: string,
    attempt: number,
    batch: BatchHistory,
    workbook: BatchWorkbook,
    payload: Record<string, unknown>,
  ): Promise<void> {
    if (workbook.unknownHeaders.length) {
      throw new BatchRejected(`Unknown column(s) in the Samples sheet: ${workbook.unknownHeaders.join(', ')}.`);
    }
    if (!workbook.rowCount) throw new BatchRejected('The Samples sheet has no sample rows.');
    const total = workbook.rowCount;
    await this.jobs.progress(jobId, 0, total);

    const caller = (await this.policy.caller(await this.uploader(batch))) as SampleCaller;
    const status: StoreStatus = batch.saveAsDraft ? 'draft' : 'pending-review';
    const meta = workbook.metadata;
    const objectTypeDefault =
      meta.object_type && !/^enter per sample/i.test(meta.object_type) ? meta.object_type : undefined;
    // The Metadata sheet wins; without one, the upload's form fields (kept in the job payload).
    const formValue = (key: string) => (typeof payload[key] === 'string' && payload[key] ? payload[key] : undefined);
    const defaults = {
      registryCode: meta.registry_code ?? meta.sesar_code ?? formValue('registry_code'),
      objectType: objectTypeDefault ?? formValue('object_type'),
    };

    await this.dataSource.transaction(async (manager) => {
      const refs = this.references.memoized();
      const errorsByRow = new Map<number, string>();
      const updates: PreparedUpdate[] = [];
      const supplied = this.suppliedIgsns(workbook.igsnCells);
      const existing = await this.existingSamples(manager, supplied);
      const mintOptions: MintOptions = { avoid: new Set(supplied) };
      const rowOfName = new Map<string, number>();
      const rowOfExternalId = new Map<string, number>();
      const rowOfIgsn = new Map<string, number>();
      const parents = new BatchParentLinks(this.igsn, this.sampleWrites, this.policy);
      // Rows are inserted a chunk at a time as they validate, in this one transaction; after the
      // first bad row nothing more is inserted (the rest is still checked for the report) and the
      // transaction rolls back. Memory stays bounded by the chunk, not the file.
      let pending: PreparedRow[] = [];
      const created = { count: 0, first: null as string | null, last: null as string | null };
      const objectTypeIds = new Set<number | undefined>();
      const codes = new Set<string | undefined>();
      const flush = async () => {
        const chunk = pending;
        pending = [];
        if (!chunk.length || errorsByRow.size) return;
        const minted = await this.mintMissing(chunk, mintOptions);
        await this.sampleWriter.withFreshMints(
          manager,
          minted,
          (inner) =>
            this.sampleWriter.insertMany(
              inner,
              chunk.map((row) => row.write),
              { batchId: batch.id },
            ),
          mintOptions,
        );
        for (const row of chunk) {
          // New batch rows always resolve an object type (only reserved samples have none).
          objectTypeIds.add(row.write.columns.objectTypeId ?? undefined);
          codes.add(row.write.columns.registryCode);
        }
        created.first ??= chunk[0].write.columns.igsn ?? null;
        created.last = chunk[chunk.length - 1].write.columns.igsn ?? null;
        created.count += chunk.length;
      };

      // A row goes through two steps. Checking it needs no database (read, mapped, validated, name
      // claimed); preparing it resolves its references and IGSN on the batch's connection. Rows are
      // checked while the previous chunk is being inserted, then prepared in file order once that
      // insert is done — never beside it, since the insert runs under a savepoint of the connection.
      let checked: { rowNumber: number; prepare: () => Promise<void> }[] = [];
      let inserting: Promise<void> | undefined;
      const prepareChecked = async () => {
        await inserting;
        inserting = undefined;
        const rows = checked;
        checked = [];
        for (const row of rows) {
          try {
            await row.prepare();
          } catch (error) {
            errorsByRow.set(row.rowNumber, describe(error));
          }
        }
        if (pending.length < INSERT_CHUNK) return;
        const insert = flush();
        insert.catch(() => undefined); // awaited (and thrown) at the next step
        inserting = insert;
      };

      let index = 0;
      try {
        for await (const row of workbook.rows()) {
          try {
            const igsnCell = row.cells.get('igsn');
            const current = igsnCell ? existing.get(this.igsn.parse(String(igsnCell)) ?? '') : undefined;
            // A sample the uploader may not see is treated as if it did not exist (no existence leak).
            if (current && this.policy.canView(current, caller, this.clock.now())) {
              // An update (rare: an edited export re-uploaded) is checked and prepared in its turn.
              await prepareChecked();
              await inserting;
              inserting = undefined;
              await this.prepareRowUpdate(
                row.cells,
                current,
                caller,
                manager,
                refs,
                rowOfName,
                rowOfExternalId,
                row.rowNumber,
                updates,
                parents,
                { defaults, status, batchId: batch.id },
              );
              continue;
            }
            const checkedRow = await this.checkNewRow(row.cells, defaults, rowOfName, row.rowNumber, parents);
            this.claimExternalId(checkedRow.dto.external_sample_id, row.rowNumber, rowOfExternalId);
            checked.push({
              rowNumber: row.rowNumber,
              prepare: async () => {
                const write = await this.sampleWriter.prepareNew(checkedRow.dto, caller, status, manager, {
                  channel: 'batch',
                  references: refs,
                });
                checkedRow.written.write = write;
                const supplied = write.columns.igsn;
                if (supplied && existing.has(supplied)) {
                  // Hidden, yet taken: only reachable inside a namespace the uploader may use.
                  throw ApiError.conflict('IGSN already registered.', {
                    igsn: [`${this.igsn.toDoi(supplied)} is already registered`],
                  });
                }
                if (supplied) {
                  const other = rowOfIgsn.get(supplied);
                  if (other !== undefined) {
                    throw ApiError.conflict('Duplicate IGSN.', { igsn: [`duplicates the IGSN in row ${other}`] });
                  }
                  rowOfIgsn.set(supplied, row.rowNumber);
                }
                if (!errorsByRow.size) pending.push({ rowNumber: row.rowNumber, write });
              },
            });
          } catch (error) {
            errorsByRow.set(row.rowNumber, describe(error));
          } finally {
            if (checked.length >= INSERT_CHUNK) await prepareChecked();
            await this.checkpoint(jobId, attempt, ++index);
          }
        }
        await prepareChecked();
        await inserting;
        inserting = undefined;
        await flush();
      } finally {
        // Nothing may run on the connection after the transaction ends (a rollback on an error).
        await inserting?.catch(() => undefined);
      }
      const parentLinks = await parents.resolve(manager, caller, this.clock.now(), errorsByRow);
      if (errorsByRow.size) {
        throw new BatchRejected(
          `${errorsByRow.size} of ${total} row(s) have errors; nothing was registered. Download the error report for details.`,
          new Map([...errorsByRow.entries()].sort(([a], [b]) => a - b)),
        );
      }
      for (const update of updates) await this.sampleWriter.applyUpdate(manager, update.sample, update.write);
      await this.sampleWrites.setParents(manager, parentLinks);

      const [onlyType] = objectTypeIds.size === 1 ? [...objectTypeIds] : [];
      const [onlyCode] = codes.size === 1 ? [...codes] : [];
      const objectTypeLabel =
        onlyType === undefined ? null : ((await this.objectTypes.findById(onlyType, manager))?.label ?? null);
      await this.batches.update(manager, batch.id, {
        sampleCount: created.count + updates.length,
        processedTime: this.clock.now(),
        objectType: objectTypeLabel,
        registryCode: onlyCode ?? batch.registryCode,
        // The code's team owns the batch (the code may come from the Metadata sheet, not the form).
        teamOwnerId:
          batch.teamOwnerId ??
          (onlyCode ? (await this.accounts.registryCodeOwner(onlyCode, manager))?.teamOwnerId : null) ??
          null,
      });
      // The account may have been deactivated while the rows were checked: it must not commit them.
      await this.uploader(batch, manager);
      await this.jobs.complete(manager, jobId, attempt, {
        processedCount: total,
        result: {
          batch_id: batch.id,
          sample_count: created.count,
          updated_count: updates.length,
          status,
          first_igsn: created.first ? this.igsn.toDoi(created.first) : null,
          last_igsn: created.last ? this.igsn.toDoi(created.last) : null,
        },
      });
    });
  }

  /**
   * The uploader as they are now, not as they were at upload: a batch queued by an account since
   * deactivated, or since stripped of upload permission, fails instead of registering. Inside the
   * batch's transaction the account row is share-locked until it commits.
   */
  private async uploader(batch: BatchHistory, manager?: EntityManager): Promise<AuthenticatedUser> {
    const owner = await this.accounts.activeUser(batch.uploadedById ?? 0, manager, { lock: !!manager });
    if (!owner) {
      throw new BatchRejected('The account that uploaded this batch is no longer active; nothing was registered.');
    }
    const uploadPermission = owner.uploadPermissionStatus === 1;
    if (!uploadPermission && !owner.isStaff && !owner.isAdmin) {
      throw new BatchRejected(
        'The account that uploaded this batch no longer has upload permission; nothing was registered.',
      );
    }
    return {
      userId: owner.id,
      email: owner.email,
      isStaff: owner.isStaff,
      isAdmin: owner.isAdmin,
      uploadPermission,
      tokenPairId: '',
      tokenKind: 'session',
      connection: null,
    };
  }

  /** Progress every 500 rows, and the point where a cancelled or superseded run stops. */
  private async checkpoint(jobId: string, attempt: number, done: number): Promise<void> {
    if (done % PROGRESS_EVERY !== 0) return;
    await this.jobs.progress(jobId, done);
    if (await this.jobs.shouldStop(jobId, attempt)) throw new JobCancelledError();
  }

  /** Names are unique within one file (case-insensitively). */
  private claimName(name: string, rowNumber: number, rowOfName: Map<string, number>): void {
    const key = name.toLowerCase();
    const earlier = rowOfName.get(key);
    if (earlier !== undefined) {
      throw ApiError.conflict('Duplicate name.', { name: [`duplicates the name in row ${earlier}`] });
    }
    rowOfName.set(key, rowNumber);
  }

  /**
   * External sample ids are unique within one file, as among the uploader's stored samples (which
   * SampleWriter checks for each row).
   */
  private claimExternalId(externalId: string | null | undefined, rowNumber: number, rowOf: Map<string, number>): void {
    if (!externalId) return;
    const earlier = rowOf.get(externalId);
    if (earlier !== undefined) {
      throw ApiError.conflict('Duplicate external sample id.', {
        external_sample_id: [`duplicates the external sample id in row ${earlier}`],
      });
    }
    rowOf.set(externalId, rowNumber);
  }

  /** The distinct IGSNs the file's IGSN cells name. */
  private suppliedIgsns(cells: (CellValue | undefined)[]): string[] {
    return [
      ...new Set(
        cells.map((cell) => (cell ? this.igsn.parse(String(cell)) : undefined)).filter((s): s is string => !!s),
      ),
    ];
  }

  /** Samples named by the file's IGSN cells that already exist, locked for the batch's transaction. */
  private async existingSamples(manager: EntityManager, suffixes: string[]): Promise<Map<string, Sample>> {
    if (!suffixes.length) return new Map();
    const found = await this.sampleWrites.lockByIgsns(manager, suffixes);
    return new Map(found.map((sample) => [sample.igsn, sample]));
  }

  /** A new sample's row, checked: its DTO, to be prepared once the connection is free. */
  private async checkNewRow(
    cells: Map<string, CellValue>,
    defaults: RowDefaults,
    rowOfName: Map<string, number>,
    rowNumber: number,
    parents: BatchParentLinks,
  ): Promise<CheckedNewRow> {
    const dto = await validateBuiltBody(CreateSampleDto, rowToSampleBody(cells, defaults));
    this.claimName(dto.name, rowNumber, rowOfName);
    const written: { write?: ResolvedWrite } = {};
    parents.defer(rowNumber, dto, () => written.write?.columns.igsn);
    return { dto, written };
  }

  /**
   * A row whose IGSN exists updates that sample, with PATCH's rules: only if the uploader may edit
   * it; only the cells that are filled in change it (an empty cell leaves the value alone); the
   * Metadata sheet's object type does not apply to it.
   */
  private async prepareRowUpdate(
    cells: Map<string, CellValue>,
    sample: Sample,
    caller: SampleCaller,
    manager: EntityManager,
    refs: SampleReferenceLookups,
    rowOfName: Map<string, number>,
    rowOfExternalId: Map<string, number>,
    rowNumber: number,
    updates: PreparedUpdate[],
    parents: BatchParentLinks,
    batch: { defaults: RowDefaults; status: StoreStatus; batchId: number },
  ): Promise<void> {
    if (!this.policy.canEdit(sample, caller)) {
      throw ApiError.conflict('IGSN already registered.', {
        igsn: [`${this.igsn.toDoi(sample.igsn)} is already registered and you may not edit it`],
      });
    }
    const earlier = updates.find((update) => update.sample.id === sample.id);
    if (earlier) {
      throw ApiError.conflict('Duplicate IGSN.', { igsn: [`duplicates the IGSN in row ${earlier.rowNumber}`] });
    }
    // A reserved IGSN is described by its row as a new sample would be: the file's defaults apply,
    // and it becomes what the batch's new samples become (draft or pending review).
    const reserved = sample.metadataStoreStatus === 'reserved';
    const body = rowToSampleBody(cells, reserved ? batch.defaults : {});
    const dto = await validateBuiltBody(UpdateSampleDto, body);
    parents.defer(rowNumber, dto, () => sample.igsn);
    this.claimName(dto.name ?? sample.name, rowNumber, rowOfName);
    this.claimExternalId(dto.external_sample_id ?? sample.externalSampleId, rowNumber, rowOfExternalId);
    const write = await this.sampleWriter.prepareUpdate(sample, dto, caller, manager, {
      channel: 'batch',
      references: refs,
      completeReservedAs: batch.status,
    });
    // Completed by this batch, it is curated with it (accept, submit for review).
    if (reserved) write.columns.batchId = batch.batchId;
    updates.push({ rowNumber, sample, write });
  }

  /**
   * IGSNs for rows without one, in one block per registry code; returns those rows' writes. Minting
   * commits on its own (no lock held while the batch inserts); if the batch then fails, those
   * values are skipped — the contract allows gaps, never duplicates. IGSNs supplied anywhere in the
   * file (`avoid`) are never minted for another row, though not stored yet.
   */
  private async mintMissing(rows: PreparedRow[], options: MintOptions): Promise<ResolvedWrite[]> {
    const missing = rows.filter((row) => !row.write.columns.igsn).map((row) => row.write);
    if (missing.length)
      await this.dataSource.transaction((manager) => this.sampleWriter.mintInto(manager, missing, options));
    return missing;
  }
}
