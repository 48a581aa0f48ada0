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
import { sheetRows } from './sheet-rows';

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

/** Rows of sheet cells on disk (one JSON array a line) until the batch has been processed. */
type SpilledCell = string | number | boolean | { d: string } | null;

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
 * XlsxPartsReader): the Samples sheet's rows go to a work file as they are read, so the worker's
 * memory does not grow with the file; the row, cell and byte budgets stop the reading as soon as
 * one is exceeded. Rows are then replayed
 * from the work file, and the error report is written from it too (no second parse of the upload).
 * `dispose()` deletes the work file.
 */
export class BatchWorkbook {
  metadata: Record<string, string> = {};
  /** The Metadata sheet as it was (keys in their original case), for the error report. */
  private metadataRows: [string, CellValue][] = [];
  header: CellValue[] = [];
  columns: (BatchField | undefined)[] = [];
  unknownHeaders: string[] = [];
  /** Sample rows (blank rows are skipped). */
  rowCount = 0;
  /** Every filled-in IGSN cell, for finding the samples the batch updates before it starts. */
  igsnCells: CellValue[] = [];
  private readonly spillPath: string;

  private constructor(
    readonly sheetName: string,
    private readonly samplesPath: string,
    workDir: string,
  ) {
    this.spillPath = join(workDir, tempFileName(`batch-${randomUUID()}.jsonl`));
  }

  /** Reads the workbook; throws BatchWorkbookRefused (budgets, no Samples sheet) or Error (unreadable). */
  static async read(buffer: Buffer, budgets: BatchBudgets, workDir: string): Promise<BatchWorkbook> {
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
    const workbook = new BatchWorkbook(layout.samplesSheet.name, layout.samplesSheet.path, workDir);
    try {
      await workbook.load(buffer, layout, budgets);
      return workbook;
    } catch (error) {
      await workbook.dispose();
      throw error;
    }
  }

  private async load(buffer: Buffer, layout: WorkbookLayout, budgets: BatchBudgets): Promise<void> {
    const sink = new FileSink(this.spillPath);
    try {
      const parts = await XlsxPartsReader.open(workbookArchive(buffer));
      for (const sheet of layout.sheets) {
        if (sheet.name.toLowerCase() === 'metadata') await this.readMetadata(parts.worksheet(sheet.path));
      }
      await this.readSamples(parts.worksheet(this.samplesPath), sink, budgets);
      await sink.end();
    } catch (error) {
      sink.destroy();
      if (error instanceof BatchWorkbookRefused) throw error;
      throw new Error(`The workbook could not be read: ${(error as Error).message}`);
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

  private async readSamples(
    sheet: excelStream.xlsx.WorksheetReader,
    sink: FileSink,
    budgets: BatchBudgets,
  ): Promise<void> {
    let cells = 0;
    let first = true;
    let igsnColumn = -1;
    for await (const rows of sheetRows(sheet)) {
      const lines: string[] = [];
      for (const row of rows) {
        const values = rowCells(row.values);
        if (first) {
          first = false;
          this.readHeader(values);
          igsnColumn = this.columns.findIndex((field) => field?.key === 'igsn');
          continue;
        }
        if (values.every(isBlank)) continue;
        this.rowCount++;
        if (this.rowCount > budgets.maxRows) {
          throw new BatchWorkbookRefused(
            `The Samples sheet has more than ${budgets.maxRows} rows; a batch holds at most ${budgets.maxRows}.`,
          );
        }
        cells += values.filter((value) => !isBlank(value)).length;
        if (cells > budgets.maxCells) {
          throw new BatchWorkbookRefused(
            `The Samples sheet has more than ${budgets.maxCells} filled-in cells; split it into smaller batches.`,
          );
        }
        if (igsnColumn >= 0 && !isBlank(values[igsnColumn])) this.igsnCells.push(values[igsnColumn]);
        lines.push(JSON.stringify([row.number, ...values.map(toSpilled)]) + '\n');
      }
      // One write for the rows of a piece of the sheet.
      if (lines.length) await sink.write(lines.join(''));
    }
  }

  private readHeader(values: CellValue[]): void {
    this.header = values;
    values.forEach((header, index) => {
      if (isBlank(header)) return;
      const text = String(header);
      const field = batchFieldByHeader(text);
      this.columns[index] = field;
      // An `Errors` column is what our error report adds: re-uploading a corrected report works.
      if (!field && text.trim().toLowerCase() !== 'errors') this.unknownHeaders.push(text.trim());
    });
  }

  /** The sample rows in sheet order, read back from the work file. */
  async *rows(): AsyncGenerator<BatchRow> {
    for await (const [rowNumber, values] of this.spilledRows()) {
      const cells = new Map<string, CellValue>();
      values.forEach((value, index) => {
        const field = this.columns[index];
        if (field && !isBlank(value)) cells.set(field.key, typeof value === 'string' ? value.trim() : value);
      });
      yield { rowNumber, cells };
    }
  }

  private async *spilledRows(): AsyncGenerator<[number, CellValue[]]> {
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
      for await (const [rowNumber, values] of this.spilledRows()) {
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
    await rm(this.spillPath, { force: true });
  }
}
