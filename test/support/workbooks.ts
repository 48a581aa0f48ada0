import * as XLSX from 'xlsx';

export interface WorkbookSpec {
  metadata?: Record<string, string>;
  headers: string[];
  rows: (string | number | Date | null)[][];
}

/** An .xlsx laid out like the template: a Samples sheet with a header row and an optional Metadata sheet. */
export function buildWorkbook(spec: WorkbookSpec): Buffer {
  const workbook = XLSX.utils.book_new();
  if (spec.metadata) {
    XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(Object.entries(spec.metadata)), 'Metadata');
  }
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([spec.headers, ...spec.rows]), 'Samples');
  return XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}

/** Rows of the Samples sheet of a workbook (header first). */
export function readSamplesSheet(buffer: Buffer): unknown[][] {
  const workbook = XLSX.read(buffer, { type: 'buffer' });
  return XLSX.utils.sheet_to_json<unknown[]>(workbook.Sheets.Samples, { header: 1, defval: null });
}
