import * as XLSX from 'xlsx';
import { BatchField, batchFieldByHeader } from './batch-fields';
import { samplesSheetName } from './xlsx-inspection';

export type CellValue = string | number | boolean | Date | null;

export interface BatchRow {
  /** 1-based row number in the Samples sheet (the header is row 1). */
  rowNumber: number;
  cells: Map<string, CellValue>;
}

export interface ParsedBatchWorkbook {
  sheetName: string;
  /** Key/value settings from the hidden Metadata sheet (keys lower-cased). */
  metadata: Record<string, string>;
  columns: (BatchField | undefined)[];
  unknownHeaders: string[];
  rows: BatchRow[];
}

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** The Samples sheet and Metadata settings of an uploaded workbook (already inspected). */
export function readBatchWorkbook(buffer: Buffer): ParsedBatchWorkbook {
  // Raw values only: no formatted text, HTML or styles per cell (they multiply memory on big files).
  const workbook = XLSX.read(buffer, {
    type: 'buffer',
    cellDates: true,
    dense: true,
    cellFormula: false,
    cellHTML: false,
    cellText: false,
    cellStyles: false,
  });
  const sheetName = samplesSheetName(workbook.SheetNames);
  if (!sheetName) throw new Error('The workbook has no Samples sheet.');

  const metadata: Record<string, string> = {};
  const metadataSheet = workbook.SheetNames.find((name) => name.toLowerCase() === 'metadata');
  if (metadataSheet) {
    const rows = XLSX.utils.sheet_to_json<unknown[]>(workbook.Sheets[metadataSheet], {
      header: 1,
      raw: true,
      defval: null,
    });
    for (const [key, value] of rows) {
      if (typeof key === 'string' && !isBlank(key) && !isBlank(value)) {
        metadata[key.trim().toLowerCase()] = String(value).trim();
      }
    }
  }

  const grid = XLSX.utils.sheet_to_json<CellValue[]>(workbook.Sheets[sheetName], {
    header: 1,
    raw: true,
    defval: null,
    blankrows: true,
  });
  const headerRow = grid[0] ?? [];
  const columns: (BatchField | undefined)[] = [];
  const unknownHeaders: string[] = [];
  headerRow.forEach((header, index) => {
    if (isBlank(header)) {
      columns[index] = undefined;
      return;
    }
    const text = String(header);
    const field = batchFieldByHeader(text);
    columns[index] = field;
    // An `Errors` column is what our error report adds: re-uploading a corrected report works.
    if (!field && text.trim().toLowerCase() !== 'errors') unknownHeaders.push(text.trim());
  });

  const rows: BatchRow[] = [];
  for (let r = 1; r < grid.length; r++) {
    const line = grid[r] ?? [];
    if (line.every(isBlank)) continue;
    const cells = new Map<string, CellValue>();
    line.forEach((value, index) => {
      const field = columns[index];
      if (field && !isBlank(value)) cells.set(field.key, typeof value === 'string' ? value.trim() : value);
    });
    rows.push({ rowNumber: r + 1, cells });
  }
  return { sheetName, metadata, columns, unknownHeaders, rows };
}

/** A copy of the uploaded workbook with an `Errors` column on the Samples sheet. */
export function withErrorsColumn(buffer: Buffer, errorsByRow: Map<number, string>): Buffer {
  const workbook = XLSX.read(buffer, { type: 'buffer', cellDates: true, cellStyles: true });
  const sheetName = samplesSheetName(workbook.SheetNames) as string;
  const sheet = workbook.Sheets[sheetName];
  const range = XLSX.utils.decode_range(sheet['!ref'] ?? 'A1');
  let column = range.e.c + 1;
  for (let c = range.s.c; c <= range.e.c; c++) {
    const header = sheet[XLSX.utils.encode_cell({ r: 0, c })] as XLSX.CellObject | undefined;
    if (typeof header?.v === 'string' && header.v.trim().toLowerCase() === 'errors') column = c;
  }
  sheet[XLSX.utils.encode_cell({ r: 0, c: column })] = { t: 's', v: 'Errors' };
  for (let r = 1; r <= range.e.r; r++) delete sheet[XLSX.utils.encode_cell({ r, c: column })];
  for (const [rowNumber, message] of errorsByRow) {
    sheet[XLSX.utils.encode_cell({ r: rowNumber - 1, c: column })] = { t: 's', v: message };
  }
  range.e.c = Math.max(range.e.c, column);
  sheet['!ref'] = XLSX.utils.encode_range(range);
  return XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}
