import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { Clock } from '../../../core/clock';
import { ApiError } from '../../../core/http/api-error';
import { validateBuiltBody } from '../../../core/http/validation';
import { statementsInTurn } from '../../../core/database/statements-in-turn';
import { AccountsService } from '../../accounts/accounts.service';
import { BackgroundJobsService } from '../../background-jobs/background-jobs.service';
import { JobCheckpoints } from '../../background-jobs/job-checkpoints';
import { CreateSampleDto, UpdateSampleDto } from '../../samples';
import { MintOptions } from '../../samples';
import { IgsnService } from '../../samples';
import { SampleAccessPolicy, SampleCaller } from '../../samples';
import { Sample, StoreStatus } from '../../samples';
import { SampleReferenceLookups, SampleReferences } from '../../samples';
import { SampleWriteRepository } from '../../samples';
import { ResolvedWrite } from '../../samples';
import { SampleWriter } from '../../samples';
import { ObjectTypeResolver } from '../../vocabularies/object-type.resolver';
import { BatchHistory } from '../batch-history.entity';
import { BatchHistoryRepository } from '../batch-history.repository';
import { BatchParentLinks } from '../batch-parent-links';
import { RowDefaults, rowToSampleBody } from '../batch-row.mapper';
import { BatchRow, BatchWorkbook, CellValue } from '../batch-workbook';
import { batchRowDefaults } from './batch-defaults';
import { BatchRejected, describeRowError } from './batch-rejected';
import { BatchTally } from './batch-tally';
import { NewRowCheck, NewRowChecks } from './new-row-checks';
import { RowClaims } from './row-claims';

const INSERT_CHUNK = 1000;
/**
 * Chunks inserting at once: one in PostgreSQL, the next ones queued behind it, so that neither the
 * worker nor PostgreSQL waits out the other's slower moments (2 → 3: 50,000 rows into 1,000,000
 * 10.1-12.4 → 9.8-11.1 s in alternating runs on two vCPUs, ~8 MB more at the peak).
 */
const CHUNKS_IN_FLIGHT = 3;
/**
 * Rows checked or prepared between two turns of the event loop while a chunk is being inserted. The
 * rows come from a buffered file and their references are mostly known already, so handling them
 * rarely waits on I/O: without a turn, the replies of the insert's statements (and of the mint
 * before it) waited behind up to a few hundred rows each, and PostgreSQL sat idle between them.
 */
const ROWS_PER_TURN = 25;

/** What a batch import works with: the worker's services, shared by every job. */
export interface BatchImportTools {
  dataSource: DataSource;
  batches: BatchHistoryRepository;
  jobs: BackgroundJobsService;
  /** The samples' write pipeline (prepare, mint, insert, update). */
  writer: SampleWriter;
  sampleWrites: SampleWriteRepository;
  references: SampleReferences;
  igsn: IgsnService;
  policy: SampleAccessPolicy;
  accounts: AccountsService;
  objectTypes: ObjectTypeResolver;
  clock: Clock;
  /** How a batch of this many rows checks its new rows (on threads when large). */
  newRowChecks(rowCount: number): NewRowChecks;
}

/** The job an import runs under, with the plumbing the job's owner keeps. */
export interface BatchImportJob {
  id: string;
  attempt: number;
  payload: Record<string, unknown>;
  /** Reached after each row: report progress, and throw once the run must stop. */
  checkpoints: Pick<JobCheckpoints, 'reached' | 'settle'>;
  /** The uploader as they are now; refuses the batch if they may no longer upload. */
  uploader(manager?: EntityManager): Promise<AuthenticatedUser>;
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
  rowNumber: number;
  dto: CreateSampleDto;
  /** Its write once prepared (the parent link reads the IGSN from it). */
  write?: ResolvedWrite;
}

/**
 * One batch registration: every row is checked with the same rules as POST /api/samples/ (the
 * validation pipe's checks, then the writer's preparation with draft rules when save_as_draft). All
 * or nothing: one bad row fails the batch with an error report; otherwise all samples are inserted
 * in one transaction together with the job's completion, so a crash leaves nothing half-written and
 * a re-run after a crash completes exactly once.
 *
 * Rows are inserted a chunk at a time as they validate, in that one transaction; after the first
 * bad row nothing more is inserted (the rest is still checked for the report) and the transaction
 * rolls back. Memory stays bounded by the chunk, not the file. A sheet without an IGSN column is
 * read as its rows are registered (BatchWorkbook.open), so its first chunk is inserted while the
 * rest of the file is unread; the row count is final, and an empty sheet refused, once it is read.
 */
export class BatchImport {
  private readonly status: StoreStatus;
  private readonly defaults: RowDefaults;
  private readonly errorsByRow = new Map<number, string>();
  private readonly claims = new RowClaims();
  private readonly tally = new BatchTally();
  private readonly updates: PreparedUpdate[] = [];
  private readonly refs: SampleReferenceLookups;
  private readonly parents: BatchParentLinks;
  private readonly checks: NewRowChecks;
  /** New rows checked, waiting to be prepared in file order. */
  private checked: CheckedNewRow[] = [];
  /** New rows prepared, waiting to be inserted. */
  private pending: PreparedRow[] = [];
  /** The inserts of the last chunks, in file order, running while the next rows are checked and prepared. */
  private inserting: Promise<void>[] = [];
  private rowsRead = 0;
  /** Set when the transaction begins; every step below runs inside it. */
  private manager!: EntityManager;
  private caller!: SampleCaller;
  /** Stored samples the file's IGSN cells name, locked for the transaction. */
  private existing = new Map<string, Sample>();
  private mintOptions: MintOptions = {};

  constructor(
    private readonly tools: BatchImportTools,
    private readonly job: BatchImportJob,
    private readonly batch: BatchHistory,
    private readonly workbook: BatchWorkbook,
  ) {
    this.status = batch.saveAsDraft ? 'draft' : 'pending-review';
    this.defaults = batchRowDefaults(workbook.metadata, job.payload);
    this.refs = tools.references.memoized();
    this.parents = new BatchParentLinks(tools.igsn, tools.sampleWrites, tools.policy);
    this.checks = tools.newRowChecks(workbook.expectedRows ?? 0);
  }

  async run(): Promise<void> {
    this.checkSheet();
    await this.tools.jobs.progress(this.job.id, 0, this.workbook.expectedRows);
    this.caller = (await this.tools.policy.caller(await this.job.uploader())) as SampleCaller;
    await this.tools.dataSource.transaction(async (manager) => {
      // The next rows are prepared (their lookups on this connection) while a chunk inserts.
      statementsInTurn(manager);
      this.manager = manager;
      await this.resolveExistingSamples();
      await this.readRows();
      this.checkSheet();
      const parentLinks = await this.parents.resolve(manager, this.caller, this.tools.clock.now(), this.errorsByRow);
      this.rejectIfAnyRowFailed();
      for (const update of this.updates) await this.tools.writer.applyUpdate(manager, update.sample, update.write);
      await this.tools.sampleWrites.setParents(manager, parentLinks);
      await this.recordResults();
      // The statistics refresh after the batch must see these rows (SampleWriteRepository).
      await this.tools.sampleWrites.reportStatisticsAtCommit(manager);
    });
  }

  /** The Samples sheet as a whole: known columns, at least one row (once they are all read). */
  private checkSheet(): void {
    const { unknownHeaders, rowCount, complete } = this.workbook;
    if (unknownHeaders.length) {
      throw new BatchRejected(`Unknown column(s) in the Samples sheet: ${unknownHeaders.join(', ')}.`);
    }
    if (complete && !rowCount) throw new BatchRejected('The Samples sheet has no sample rows.');
  }

  /**
   * The stored samples the file's IGSN cells name, locked for the transaction. IGSNs supplied
   * anywhere in the file are never minted for another row, though not stored yet.
   */
  private async resolveExistingSamples(): Promise<void> {
    const { igsn, sampleWrites } = this.tools;
    const supplied = [
      ...new Set(
        this.workbook.igsnCells
          .map((cell) => (cell ? igsn.parse(String(cell)) : undefined))
          .filter((s): s is string => !!s),
      ),
    ];
    this.mintOptions = { avoid: new Set(supplied) };
    if (!supplied.length) return;
    const found = await sampleWrites.lockByIgsns(this.manager, supplied);
    this.existing = new Map(found.map((sample) => [sample.igsn, sample]));
  }

  /**
   * Every row in file order. A new sample's row goes through two steps: checking it needs no
   * database (read, mapped, validated — on threads for a large batch —, name claimed); preparing it
   * resolves its references and IGSN on the batch's connection. Rows are checked and prepared while
   * the previous chunks are being inserted: the statements of all of them take turns on the
   * connection (statementsInTurn), and the inserts use no savepoint (SampleWriter.insertMany).
   */
  private async readRows(): Promise<void> {
    try {
      for await (const row of this.workbook.rows()) {
        try {
          await this.takeRow(row);
        } catch (error) {
          this.errorsByRow.set(row.rowNumber, describeRowError(error));
        } finally {
          if (this.checked.length >= INSERT_CHUNK) await this.prepareChecked();
          await this.job.checkpoints.reached(++this.rowsRead);
          if (this.inserting.length && this.rowsRead % ROWS_PER_TURN === 0) await nextTurn();
        }
      }
      this.takeChecks(await this.checks.drain());
      await this.prepareChecked();
      await this.insertPending();
      await this.settleInserts();
      await this.job.checkpoints.settle();
      // The total was what the sheet declared while its rows were read as they were registered.
      await this.tools.jobs.progress(this.job.id, this.rowsRead, this.workbook.rowCount);
    } finally {
      // Nothing may run on the connection after the transaction ends (a rollback on an error).
      await Promise.allSettled(this.inserting);
    }
  }

  private async takeRow(row: BatchRow): Promise<void> {
    const stored = this.storedSampleOf(row.cells);
    if (stored) {
      // An update (rare: an edited export re-uploaded) is checked and prepared in its turn.
      this.takeChecks(await this.checks.drain());
      await this.prepareChecked();
      await this.settleInserts();
      await this.prepareUpdate(row, stored);
      return;
    }
    this.takeChecks(await this.checks.add(row.rowNumber, rowToSampleBody(row.cells, this.defaults)));
  }

  /** The stored sample a row's IGSN names, if the uploader may see it (else as if it did not exist). */
  private storedSampleOf(cells: Map<string, CellValue>): Sample | undefined {
    const igsnCell = cells.get('igsn');
    const current = igsnCell ? this.existing.get(this.tools.igsn.parse(String(igsnCell)) ?? '') : undefined;
    return current && this.tools.policy.canView(current, this.caller, this.tools.clock.now()) ? current : undefined;
  }

  /**
   * New rows past the register rules, in file order: each claims its name and external id and
   * hands over its parent, then waits to be prepared once the connection is free.
   */
  private takeChecks(checks: NewRowCheck[]): void {
    for (const check of checks) {
      const { rowNumber } = check;
      if ('error' in check) {
        this.errorsByRow.set(rowNumber, check.error);
        continue;
      }
      try {
        this.claims.claimName(check.dto.name, rowNumber);
        const checked: CheckedNewRow = { rowNumber, dto: check.dto };
        this.parents.defer(rowNumber, check.dto, () => checked.write?.columns.igsn);
        this.claims.claimExternalId(check.dto.external_sample_id, rowNumber);
        this.checked.push(checked);
      } catch (error) {
        this.errorsByRow.set(rowNumber, describeRowError(error));
      }
    }
  }

  /**
   * Prepares the checked rows in file order, refuses those whose external id the uploader's stored
   * samples carry (one statement for them all), then starts inserting a full chunk.
   */
  private async prepareChecked(): Promise<void> {
    const rows = this.checked;
    this.checked = [];
    const prepared: PreparedRow[] = [];
    for (const [index, row] of rows.entries()) {
      try {
        prepared.push({ rowNumber: row.rowNumber, write: await this.prepareNewRow(row) });
      } catch (error) {
        this.errorsByRow.set(row.rowNumber, describeRowError(error));
      }
      if (this.inserting.length && (index + 1) % ROWS_PER_TURN === 0) await nextTurn();
    }
    const taken = await this.tools.writer.takenExternalIds(
      this.manager,
      prepared.map((row) => row.write),
    );
    for (const row of prepared) {
      const refusal = taken.get(row.write);
      if (refusal) this.errorsByRow.set(row.rowNumber, describeRowError(refusal));
    }
    // After a failed row nothing more is inserted (the batch will be refused); the rest is still checked.
    if (!this.errorsByRow.size) this.pending.push(...prepared);
    if (this.pending.length >= INSERT_CHUNK) await this.insertPending();
  }

  /** Waits for every chunk being inserted; throws the first one's error. */
  private async settleInserts(): Promise<void> {
    while (this.inserting.length) await this.inserting.shift();
  }

  /** A checked new row prepared for its insert: references resolved, its supplied IGSN claimed. */
  private async prepareNewRow(row: CheckedNewRow): Promise<ResolvedWrite> {
    const write = await this.tools.writer.prepareNew(row.dto, this.caller, this.status, this.manager, {
      channel: 'batch',
      references: this.refs,
    });
    row.write = write;
    const supplied = write.columns.igsn;
    if (supplied && this.existing.has(supplied)) {
      // Hidden, yet taken: only reachable inside a namespace the uploader may use.
      throw ApiError.conflict('IGSN already registered.', {
        igsn: [`${this.tools.igsn.toDoi(supplied)} is already registered`],
      });
    }
    if (supplied) this.claims.claimIgsn(supplied, row.rowNumber);
    return write;
  }

  /**
   * A row whose IGSN exists updates that sample, with PATCH's rules: only if the uploader may edit
   * it; only the cells that are filled in change it (an empty cell leaves the value alone); the
   * Metadata sheet's object type does not apply to it.
   */
  private async prepareUpdate({ rowNumber, cells }: BatchRow, sample: Sample): Promise<void> {
    if (!this.tools.policy.canEdit(sample, this.caller)) {
      throw ApiError.conflict('IGSN already registered.', {
        igsn: [`${this.tools.igsn.toDoi(sample.igsn)} is already registered and you may not edit it`],
      });
    }
    const earlier = this.updates.find((update) => update.sample.id === sample.id);
    if (earlier) {
      throw ApiError.conflict('Duplicate IGSN.', { igsn: [`duplicates the IGSN in row ${earlier.rowNumber}`] });
    }
    // A reserved IGSN is described by its row as a new sample would be: the file's defaults apply,
    // and it becomes what the batch's new samples become (draft or pending review).
    const reserved = sample.metadataStoreStatus === 'reserved';
    const dto = await validateBuiltBody(UpdateSampleDto, rowToSampleBody(cells, reserved ? this.defaults : {}));
    this.parents.defer(rowNumber, dto, () => sample.igsn);
    this.claims.claimName(dto.name ?? sample.name, rowNumber);
    this.claims.claimExternalId(dto.external_sample_id ?? sample.externalSampleId, rowNumber);
    const write = await this.tools.writer.prepareUpdate(sample, dto, this.caller, this.manager, {
      channel: 'batch',
      references: this.refs,
      completeReservedAs: this.status,
    });
    // Completed by this batch, it is curated with it (accept, submit for review).
    if (reserved) write.columns.batchId = this.batch.id;
    this.updates.push({ rowNumber, sample, write });
  }

  /**
   * Starts minting and inserting the prepared rows, unless a row has failed (then nothing more is
   * inserted), once fewer than CHUNKS_IN_FLIGHT chunks are inserting; the insert is awaited (and
   * its error thrown) later, at settleInserts.
   */
  private async insertPending(): Promise<void> {
    const chunk = this.pending;
    this.pending = [];
    if (!chunk.length || this.errorsByRow.size) return;
    while (this.inserting.length >= CHUNKS_IN_FLIGHT) await this.inserting.shift();
    const writes = chunk.map((row) => row.write);
    this.tally.add(writes);
    const insert = this.insertChunk(writes, this.inserting.at(-1));
    insert.catch(() => undefined); // awaited (and thrown) at settleInserts
    this.inserting.push(insert);
  }

  /**
   * Mints (on a connection of its own) and inserts one chunk. Its statements queue behind those of
   * the chunk before it; if that chunk fails, its error is this one's too (the transaction is lost).
   */
  private async insertChunk(writes: ResolvedWrite[], before?: Promise<void>): Promise<void> {
    const minted = await this.mintMissing(writes);
    const insert = this.tools.writer.insertMany(this.manager, writes, {
      extra: { batchId: this.batch.id },
      minted,
      mintOptions: this.mintOptions,
    });
    insert.catch(() => undefined); // thrown below, after the error of the chunk before
    await before;
    await insert;
  }

  /**
   * IGSNs for writes without one, in one block per registry code; returns those writes. Minting
   * commits on its own (no lock held while the batch inserts); if the batch then fails, those
   * values are skipped — the contract allows gaps, never duplicates.
   */
  private async mintMissing(writes: ResolvedWrite[]): Promise<ResolvedWrite[]> {
    const missing = writes.filter((write) => !write.columns.igsn);
    if (missing.length) {
      await this.tools.dataSource.transaction((manager) =>
        this.tools.writer.mintInto(manager, missing, this.mintOptions),
      );
    }
    return missing;
  }

  private rejectIfAnyRowFailed(): void {
    if (!this.errorsByRow.size) return;
    throw new BatchRejected(
      `${this.errorsByRow.size} of ${this.workbook.rowCount} row(s) have errors; nothing was registered. Download the error report for details.`,
      new Map([...this.errorsByRow.entries()].sort(([a], [b]) => a - b)),
    );
  }

  /** The batch's summary and the job's completion, committed with the samples. */
  private async recordResults(): Promise<void> {
    const { batches, objectTypes, accounts, jobs, igsn, clock } = this.tools;
    const { manager, batch, tally } = this;
    const onlyType = tally.onlyObjectTypeId();
    const onlyCode = tally.onlyRegistryCode();
    const objectTypeLabel =
      onlyType === undefined ? null : ((await objectTypes.findById(onlyType, manager))?.label ?? null);
    await batches.update(manager, batch.id, {
      sampleCount: tally.count + this.updates.length,
      processedTime: clock.now(),
      objectType: objectTypeLabel,
      registryCode: onlyCode ?? batch.registryCode,
      // The code's team owns the batch (the code may come from the Metadata sheet, not the form).
      teamOwnerId:
        batch.teamOwnerId ??
        (onlyCode ? (await accounts.registryCodeOwner(onlyCode, manager))?.teamOwnerId : null) ??
        null,
    });
    // The account may have been deactivated while the rows were checked: it must not commit them.
    await this.job.uploader(manager);
    await jobs.complete(manager, this.job.id, this.job.attempt, {
      processedCount: this.workbook.rowCount,
      result: {
        batch_id: batch.id,
        sample_count: tally.count,
        updated_count: this.updates.length,
        status: this.status,
        first_igsn: tally.first ? igsn.toDoi(tally.first) : null,
        last_igsn: tally.last ? igsn.toDoi(tally.last) : null,
      },
    });
  }
}
