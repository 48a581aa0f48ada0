import { stream as excelStream } from 'exceljs';
import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { FileSink } from '../../core/files/file-sink';
import { ApiError } from '../../core/http/api-error';
import { tempFileName } from '../../core/files/private-temp-dir';
import { BatchField, batchFieldByHeader } from './batch-fields';
import { WorkbookLayout, inspectWorkbookArchive, workbookArchive } from './xlsx-inspection';
import { XlsxPartsReader } from './xlsx-parts-reader';
import { SheetRow, sheetRows } from './sheet-rows';

export type CellValue = string | number | boolean | Date | null;

export interface BatchRow {
  /** 1-based row number in the Samples sheet (the header is row 1). */
  rowNumber: number;
  cells: Map<string, CellValue>;
}

/** What a batch may cost the worker: past any of these, the job fails with a message saying which. */
export interface BatchBudgets {
  maxRows: number;
  maxCells: number;
  maxInflatedBytes: number;
}

/** A budget was exceeded or the workbook cannot be used; the message is for the uploader. */
export class BatchWorkbookRefused extends Error {}

/** The workbook's XML could not be read (damaged, or a reader failure the inspection did not foresee). */
export class BatchWorkbookUnreadable extends Error {}

/** Rows of sheet cells on disk (one JSON array a line) until the batch has been processed. */
type SpilledCell = string | number | boolean | { d: string } | null;

/** A sample row as the sheet holds it: its number and its cells, 0-based. */
type SheetSampleRow = [rowNumber: number, values: CellValue[]];

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** An exceljs cell value as the plain value it shows: rich text joined, a formula's cached result, a link's text. */
function plainValue(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Date || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return value;
  }
  if (typeof value === 'object') {
    const object = value as { richText?: { text: string }[]; result?: unknown; text?: unknown; error?: unknown };
    if (Array.isArray(object.richText)) return object.richText.map((run) => run.text).join('');
    if ('result' in object) return plainValue(object.result);
    if ('text' in object) return plainValue(object.text);
    return null; // an error value (#N/A, #REF!) or an unknown kind: an empty cell
  }
  return typeof value === 'bigint' ? Number(value) : null;
}

/** The cells of one row, 0-based (exceljs's `values` start at index 1; a cell without a value is left out). */
export function rowCells(values: readonly unknown[]): CellValue[] {
  let length = values.length;
  while (length > 1 && values[length - 1] === undefined) length--;
  return Array.from({ length: Math.max(0, length - 1) }, (_, index) => plainValue(values[index + 1]));
}

const toSpilled = (value: CellValue): SpilledCell => (value instanceof Date ? { d: value.toISOString() } : value);
const fromSpilled = (value: SpilledCell): CellValue =>
  value !== null && typeof value === 'object' ? new Date(value.d) : value;

/**
 * An uploaded batch workbook, read once with exceljs's streaming parsers (part by part, see
 * XlsxPartsReader). `open` reads the Metadata sheet and the Samples sheet's header; the sample rows
 * are then parsed as `rows()` asks for them, so a batch's first rows are registered while the rest
 * of the sheet is still unread, and the worker's memory does not grow with the file. A sheet with
 * an IGSN column is read in full first instead, into a work file it is then replayed from: the
 * IGSNs it names must be known before any row is registered (`igsnCells`). The row, cell and byte
 * budgets stop the reading as soon as one is exceeded. The error report reads the rows again (from
 * the work file, or by parsing the upload again: only a refused batch pays for it). `dispose()`
 * deletes the work file.
 */
export class BatchWorkbook {
  metadata: Record<string, string> = {};
  /** The Metadata sheet as it was (keys in their original case), for the error report. */
  private metadataRows: [string, CellValue][] = [];
  header: CellValue[] = [];
  columns: (BatchField | undefined)[] = [];
  unknownHeaders: string[] = [];
  /** Sample rows read so far (blank rows are skipped): all of them once `complete`. */
  rowCount = 0;
  /** Whether every row of the Samples sheet has been read. */
  complete = false;
  /** Every filled-in IGSN cell, for finding the samples the batch updates before it starts (read in full first). */
  igsnCells: CellValue[] = [];
  private readonly spillPath: string;
  /** Whether the rows were read in full first and written to the work file (a sheet with IGSNs). */
  private spilled = false;
  /** The Samples sheet's pieces not parsed yet. */
  private pieces?: AsyncIterator<SheetRow[]>;
  /** Rows parsed with the header, not handed out yet (streaming). */
  private parsedAhead: SheetSampleRow[] = [];
  private cells = 0;
  private headerRead = false;
  private igsnColumn = -1;

  private constructor(
    /** The upload, parsed again for the error report of a sheet read as it was registered. */
    private readonly upload: Buffer,
    readonly sheetName: string,
    private readonly samplesPath: string,
    workDir: string,
    private readonly budgets: BatchBudgets,
    /** Data rows the sheet's dimension declares, if its writer recorded one. */
    private readonly declaredRows: number | undefined,
  ) {
    this.spillPath = join(workDir, tempFileName(`batch-${randomUUID()}.jsonl`));
  }

  /**
   * Opens the workbook: the Metadata sheet and the Samples sheet's header, every row too when the
   * header has an IGSN column. Throws BatchWorkbookRefused (budgets, no Samples sheet) or
   * BatchWorkbookUnreadable; `rows()` may throw them later for the rows it reads.
   */
  static async open(buffer: Buffer, budgets: BatchBudgets, workDir: string): Promise<BatchWorkbook> {
    let layout: WorkbookLayout;
    try {
      layout = await inspectWorkbookArchive(buffer, budgets.maxInflatedBytes);
    } catch (error) {
      // The inspection's refusals say what is wrong with the file; anything else is unexpected.
      if (!(error instanceof ApiError)) throw error;
      throw new BatchWorkbookRefused(
        error.message === 'The workbook is too large once uncompressed.'
          ? `The workbook inflates to more than ${budgets.maxInflatedBytes} bytes; split it into smaller batches.`
          : error.message,
      );
    }
    if (!layout.samplesSheet) throw new BatchWorkbookRefused('The workbook has no Samples sheet.');
    const { name, path } = layout.samplesSheet;
    const workbook = new BatchWorkbook(buffer, name, path, workDir, budgets, layout.declaredRows);
    try {
      await workbook.load(buffer, layout);
      if (workbook.igsnColumn >= 0) await workbook.readRest();
      return workbook;
    } catch (error) {
      await workbook.dispose();
      throw error;
    }
  }

  /** The number of sample rows: final once `complete`, else what the sheet declares (if it does). */
  get expectedRows(): number | undefined {
    return this.complete ? this.rowCount : this.declaredRows;
  }

  private async load(buffer: Buffer, layout: WorkbookLayout): Promise<void> {
    await this.reading(async () => {
      const parts = await XlsxPartsReader.open(workbookArchive(buffer));
      for (const sheet of layout.sheets) {
        if (sheet.name.toLowerCase() === 'metadata') await this.readMetadata(parts.worksheet(sheet.path));
      }
      this.pieces = sheetRows(parts.worksheet(this.samplesPath));
    });
    // The header and the rows parsed with it.
    while (!this.complete && !this.headerRead) {
      this.parsedAhead.push(...(await this.nextPiece()));
    }
  }

  /** Runs a step of reading the file: a failure that is not a refusal says the workbook is unreadable. */
  private async reading<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof BatchWorkbookRefused || error instanceof BatchWorkbookUnreadable) throw error;
      throw new BatchWorkbookUnreadable(`The workbook could not be read: ${(error as Error).message}`);
    }
  }

  private async readMetadata(sheet: excelStream.xlsx.WorksheetReader): Promise<void> {
    for await (const rows of sheetRows(sheet)) {
      for (const row of rows) {
        const [key, value] = rowCells(row.values);
        if (typeof key !== 'string' || isBlank(key)) continue;
        this.metadataRows.push([key, value ?? null]);
        if (!isBlank(value)) this.metadata[key.trim().toLowerCase()] = String(value).trim();
      }
    }
  }

  /**
   * The sample rows of the next piece of the Samples sheet (the header taken on the way), counted
   * against the budgets; none once the sheet has been read.
   */
  private async nextPiece(): Promise<SheetSampleRow[]> {
    if (this.complete) return [];
    return this.reading(async () => {
      const piece = await this.pieces!.next();
      if (piece.done) {
        this.complete = true;
        return [];
      }
      const parsed: SheetSampleRow[] = [];
      for (const row of piece.value) {
        const values = rowCells(row.values);
        if (!this.headerRead) {
          this.readHeader(values);
          continue;
        }
        if (values.every(isBlank)) continue;
        this.countRow(values);
        parsed.push([row.number, values]);
      }
      return parsed;
    });
  }

  /** A sample row against the budgets; its IGSN cell kept. */
  private countRow(values: CellValue[]): void {
    const { maxRows, maxCells } = this.budgets;
    this.rowCount++;
    if (this.rowCount > maxRows) {
      throw new BatchWorkbookRefused(
        `The Samples sheet has more than ${maxRows} rows; a batch holds at most ${maxRows}.`,
      );
    }
    this.cells += values.filter((value) => !isBlank(value)).length;
    if (this.cells > maxCells) {
      throw new BatchWorkbookRefused(
        `The Samples sheet has more than ${maxCells} filled-in cells; split it into smaller batches.`,
      );
    }
    const igsn = this.igsnColumn >= 0 ? values[this.igsnColumn] : undefined;
    if (!isBlank(igsn)) this.igsnCells.push(igsn!);
  }

  /** Reads every row not read yet into the work file, the rows read with the header first. */
  private async readRest(): Promise<void> {
    if (this.spilled) return;
    const sink = new FileSink(this.spillPath);
    try {
      let rows = this.parsedAhead;
      this.parsedAhead = [];
      for (;;) {
        // One write for the rows of a piece of the sheet.
        const lines = rows.map(([rowNumber, values]) => JSON.stringify([rowNumber, ...values.map(toSpilled)]) + '\n');
        if (lines.length) await this.reading(() => sink.write(lines.join('')));
        if (this.complete) break;
        rows = await this.nextPiece();
      }
      await this.reading(() => sink.end());
      this.spilled = true;
    } finally {
      sink.destroy();
    }
  }

  private readHeader(values: CellValue[]): void {
    this.headerRead = true;
    this.header = values;
    values.forEach((header, index) => {
      if (isBlank(header)) return;
      const text = String(header);
      const field = batchFieldByHeader(text);
      this.columns[index] = field;
      // An `Errors` column is what our error report adds: re-uploading a corrected report works.
      if (!field && text.trim().toLowerCase() !== 'errors') this.unknownHeaders.push(text.trim());
    });
    this.igsnColumn = this.columns.findIndex((field) => field?.key === 'igsn');
  }

  /**
   * The sample rows in sheet order: parsed as they are asked for, or read back from the work file
   * when the sheet was read in full first. Once.
   */
  async *rows(): AsyncGenerator<BatchRow> {
    if (this.spilled) {
      for await (const [rowNumber, values] of this.spilledRows()) yield this.batchRow(rowNumber, values);
      return;
    }
    let rows = this.parsedAhead;
    this.parsedAhead = [];
    while (rows.length || !this.complete) {
      for (const [rowNumber, values] of rows) yield this.batchRow(rowNumber, values);
      rows = await this.nextPiece();
    }
  }

  private batchRow(rowNumber: number, values: CellValue[]): BatchRow {
    const cells = new Map<string, CellValue>();
    values.forEach((value, index) => {
      const field = this.columns[index];
      if (field && !isBlank(value)) cells.set(field.key, typeof value === 'string' ? value.trim() : value);
    });
    return { rowNumber, cells };
  }

  /**
   * The sample rows again, for the error report: from the work file, or parsed again from the upload
   * (the same reader on the same bytes: the rows `rows()` gave, whose budgets the sheet has passed).
   */
  private async *rowsAgain(): AsyncGenerator<SheetSampleRow> {
    if (this.spilled) {
      yield* this.spilledRows();
      return;
    }
    const parts = await XlsxPartsReader.open(workbookArchive(this.upload));
    let header = true;
    for await (const rows of sheetRows(parts.worksheet(this.samplesPath))) {
      for (const row of rows) {
        const values = rowCells(row.values);
        if (header) header = false;
        else if (!values.every(isBlank)) yield [row.number, values];
      }
    }
  }

  private async *spilledRows(): AsyncGenerator<SheetSampleRow> {
    const lines = createInterface({ input: createReadStream(this.spillPath), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line) continue;
      const [rowNumber, ...values] = JSON.parse(line) as [number, ...SpilledCell[]];
      yield [rowNumber, values.map(fromSpilled)];
    }
  }

  /**
   * The error report: the Samples sheet as uploaded (values) with an `Errors` column (replacing
   * one a corrected report already had), and the Metadata sheet, streamed from the work file.
   */
  async errorReport(errorsByRow: Map<number, string>): Promise<Buffer> {
    const path = `${this.spillPath}.report.xlsx`;
    const sink = new FileSink(path);
    try {
      const writer = new excelStream.xlsx.WorkbookWriter({
        stream: sink.stream,
        useStyles: true,
        useSharedStrings: false,
      });
      const existing = this.header.findIndex(
        (header) => typeof header === 'string' && header.trim().toLowerCase() === 'errors',
      );
      const errorsColumn = existing >= 0 ? existing : this.header.length;
      const samples = writer.addWorksheet(this.sheetName);
      const withErrors = (values: CellValue[], message: string | null) => {
        const cells = [...values];
        while (cells.length < errorsColumn) cells.push(null);
        cells[errorsColumn] = message;
        return cells;
      };
      samples.getRow(1).values = withErrors(this.header, 'Errors');
      samples.getRow(1).commit();
      for await (const [rowNumber, values] of this.rowsAgain()) {
        const row = samples.getRow(rowNumber);
        row.values = withErrors(values, errorsByRow.get(rowNumber) ?? null);
        row.commit();
      }
      samples.commit();
      if (this.metadataRows.length) {
        const metadata = writer.addWorksheet('Metadata', { state: 'hidden' });
        for (const entry of this.metadataRows) metadata.addRow(entry).commit();
        metadata.commit();
      }
      await writer.commit();
      await sink.end();
      return await readFile(path);
    } finally {
      sink.destroy();
      await rm(path, { force: true });
    }
  }

  async dispose(): Promise<void> {
    await this.pieces?.return?.(undefined).catch(() => undefined);
    await rm(this.spillPath, { force: true });
  }
}
