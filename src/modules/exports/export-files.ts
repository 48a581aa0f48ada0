import { Worksheet, stream as excelStream } from 'exceljs';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { EventEmitter, once } from 'node:events';
import {
  CellValue,
  SampleColumn,
  UTF8_BOM,
  csvHeader,
  csvRow,
  formulaSafe,
  sampleCells,
} from '../metadata-formats/csv.serializer';
import { FileSink } from '../../core/files/file-sink';
import { SampleDto } from '../samples';
import { XLSX_DETAILS_COLUMNS, XLSX_SAMPLES_COLUMNS } from './export-columns';

/**
 * An export file being written to disk page by page, so the worker holds one page of samples at
 * a time whatever the size of the export.
 */
export interface ExportFileWriter {
  /** Writes one page of samples. */
  write(samples: readonly SampleDto[]): Promise<void>;
  /** Completes the file; resolves once every byte is on disk. */
  finish(): Promise<void>;
  /** Stops writing (the export failed or was cancelled); the caller deletes the file. */
  abort(): void;
}

/** RFC 4180 CSV with every SampleDto field (SAMPLE_CSV_COLUMNS), a UTF-8 BOM so Excel reads it as UTF-8. */
export class CsvExportWriter implements ExportFileWriter {
  private readonly sink: FileSink;
  private readonly started: Promise<void>;

  constructor(path: string) {
    this.sink = new FileSink(path);
    this.started = this.sink.write(UTF8_BOM + csvHeader());
  }

  async write(samples: readonly SampleDto[]): Promise<void> {
    await this.started;
    await this.sink.write(samples.map((sample) => csvRow(sample)).join(''));
  }

  async finish(): Promise<void> {
    await this.started;
    await this.sink.end();
  }

  abort(): void {
    this.sink.destroy();
  }
}

/** Uncompressed sheet XML allowed to wait for the compressor before the writer pauses. */
const MAX_PENDING_ZIP_BYTES = 8 * 1024 * 1024;

function columnWidth(header: string): number {
  return Math.min(40, Math.max(12, header.length + 2));
}

/**
 * An .xlsx workbook written with exceljs's streaming WorkbookWriter (rows committed as they are
 * written, inline strings, no shared-string table or styles kept in memory):
 * - `Samples`: the batch template's columns, so the file can be uploaded again as a batch;
 * - `Metadata` (hidden): `registry_code` when every exported sample has the same one, as the
 *   batch template's Metadata sheet;
 * - `Details`: IGSN plus the fields the batch format has no column for.
 *
 * The streaming writer zips one sheet after the other: rows written to Details while Samples is
 * still open would wait in memory. So each page's Details cells go to a temporary JSON-lines file
 * beside the export, replayed into the Details sheet once Samples is complete.
 */
export class XlsxExportWriter implements ExportFileWriter {
  private readonly sink: FileSink;
  private readonly spill: FileSink;
  private readonly spillPath: string;
  private readonly workbook: excelStream.xlsx.WorkbookWriter;
  private readonly samplesSheet: Worksheet;
  private readonly detailsSheet: Worksheet;

  constructor(path: string, options: { registryCode: string | null }) {
    this.sink = new FileSink(path);
    this.spillPath = `${path}.details.jsonl`;
    this.spill = new FileSink(this.spillPath);
    this.workbook = new excelStream.xlsx.WorkbookWriter({
      stream: this.sink.stream,
      // Styles would cost a style lookup per cell (4x slower); a frozen header row needs none.
      useStyles: false,
      useSharedStrings: false,
    });
    this.workbook.creator = 'Sample Registry';
    this.samplesSheet = this.addSheet('Samples', XLSX_SAMPLES_COLUMNS);
    const metadata = this.workbook.addWorksheet('Metadata', { state: 'hidden' });
    if (options.registryCode) metadata.addRow(['registry_code', options.registryCode]).commit();
    metadata.commit();
    this.detailsSheet = this.addSheet('Details', XLSX_DETAILS_COLUMNS);
  }

  private addSheet(name: string, columns: readonly SampleColumn[]): Worksheet {
    const sheet = this.workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columns.map((column) => ({ width: columnWidth(column.header) }));
    sheet.addRow(columns.map((column) => column.header)).commit();
    return sheet;
  }

  async write(samples: readonly SampleDto[]): Promise<void> {
    this.sink.check();
    const details: string[] = [];
    for (const sample of samples) {
      this.samplesSheet.addRow(safeCells(sample, XLSX_SAMPLES_COLUMNS)).commit();
      details.push(JSON.stringify(safeCells(sample, XLSX_DETAILS_COLUMNS)));
    }
    await this.spill.write(details.join('\n') + '\n');
    await drain(this.samplesSheet);
    this.sink.check();
  }

  async finish(): Promise<void> {
    this.samplesSheet.commit();
    await this.spill.end();
    const lines = createInterface({ input: createReadStream(this.spillPath), crlfDelay: Infinity });
    let count = 0;
    for await (const line of lines) {
      if (!line) continue;
      this.detailsSheet.addRow(JSON.parse(line) as CellValue[]).commit();
      if (++count % 1000 === 0) await drain(this.detailsSheet);
    }
    await this.workbook.commit();
    this.sink.check();
    await rm(this.spillPath, { force: true });
  }

  abort(): void {
    this.spill.destroy();
    this.sink.destroy();
    void rm(this.spillPath, { force: true }).catch(() => undefined);
  }
}

/** One row's cells, formula-escaped. */
function safeCells(sample: SampleDto, columns: readonly SampleColumn[]): CellValue[] {
  return sampleCells(sample, columns).map((value) => formulaSafe(value));
}

/**
 * exceljs hands committed rows to the zip without back-pressure, so rows produced faster than
 * they are compressed would pile up in memory. When more than a few megabytes wait, wait until
 * the stream feeding the compressor of the sheet being written has drained. That stream is
 * exceljs/archiver-internal (`worksheet.stream.pipes`, a readable-stream PassThrough): found by
 * shape, and when it is not there (another exceljs version) there is nothing to wait for.
 */
async function drain(sheet: Worksheet): Promise<void> {
  const pipes = (sheet as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes ?? [];
  for (const pipe of pipes) {
    if (!(pipe instanceof EventEmitter)) continue;
    const pending = (pipe as { _writableState?: { length?: number } })._writableState?.length ?? 0;
    if (pending > MAX_PENDING_ZIP_BYTES) await once(pipe, 'drain');
  }
}
