import { Workbook } from 'exceljs';
import * as XLSX from 'xlsx';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zip } from '../../../test/support/zip';
import { BatchWorkbook, BatchWorkbookRefused, BatchWorkbookUnreadable } from './batch-workbook';
import { ZipArchive } from './zip-archive';

const budgets = { maxRows: 1000, maxCells: 100_000, maxInflatedBytes: 50 * 1024 * 1024 };

async function workbookBuffer(): Promise<Buffer> {
  const workbook = new Workbook();
  const sheet = workbook.addWorksheet('Samples');
  sheet.addRow(['Sample Name', 'Object Type', 'Sampling Start Date']);
  sheet.addRow(['Core A', 'Core', new Date(Date.UTC(2024, 4, 17))]);
  sheet.addRow(['Core B', 'Core', new Date(Date.UTC(2023, 0, 2))]);
  sheet.getColumn(3).numFmt = 'yyyy-mm-dd';
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * The same parts re-zipped in the given order (names not listed keep their order, at the end),
 * `edit` changing a part's name or content on the way.
 */
async function reordered(
  buffer: Buffer,
  first: string[],
  edit: (part: { name: string; data: Buffer }) => { name: string; data: Buffer } = (part) => part,
): Promise<Buffer> {
  const archive = new ZipArchive(buffer, 100);
  const rank = (name: string) => (first.includes(name) ? first.indexOf(name) : first.length);
  const names = archive.entries.map((entry) => entry.name).sort((a, b) => rank(a) - rank(b));
  const parts = [];
  for (const name of names) {
    const inflated = await archive.inflate(archive.entry(name)!, { limit: 1e8, maxRatio: 1e6, keep: 1e8 });
    parts.push(edit({ name, data: inflated.head }));
  }
  return zip(parts);
}

/** A Metadata sheet before the Samples sheet, as SheetJS writes them (`compression: false` stores the parts). */
function sheetJsWorkbook(compression: boolean): Buffer {
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([['registry_code', 'IEABC']]), 'Metadata');
  const header = ['Sample Name', 'Object Type', ...Array.from({ length: 40 }, (_, i) => `Extra ${i}`)];
  XLSX.utils.book_append_sheet(
    workbook,
    XLSX.utils.aoa_to_sheet([header, ['Core A', 'Core'], ['Core B', 'Core']]),
    'Samples',
  );
  return XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', compression }) as Buffer;
}

describe('BatchWorkbook', () => {
  let workDir: string;
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'batch-workbook-spec-'));
  });
  afterAll(() => rm(workDir, { recursive: true, force: true }));

  async function samples(buffer: Buffer): Promise<[string, unknown][]> {
    const workbook = await BatchWorkbook.open(buffer, budgets, workDir);
    try {
      const rows: [string, unknown][] = [];
      for await (const row of workbook.rows()) {
        rows.push([String(row.cells.get('name')), row.cells.get('sampling_start_date')]);
      }
      return rows;
    } finally {
      await workbook.dispose();
    }
  }

  const expected = [
    ['Core A', new Date(Date.UTC(2024, 4, 17))],
    ['Core B', new Date(Date.UTC(2023, 0, 2))],
  ];

  it('reads a workbook whose sheets come after the shared strings but before xl/workbook.xml and the styles', async () => {
    // The order some writers use; exceljs's streaming reader fails on it when fed the file as is.
    const buffer = await reordered(await workbookBuffer(), [
      'xl/_rels/workbook.xml.rels',
      'xl/sharedStrings.xml',
      'xl/worksheets/sheet1.xml',
      'xl/workbook.xml',
      'xl/styles.xml',
    ]);
    expect(await samples(buffer)).toEqual(expected);
  });

  it('reads a workbook whose sheets come first of all', async () => {
    const buffer = await reordered(await workbookBuffer(), ['xl/worksheets/sheet1.xml']);
    expect(await samples(buffer)).toEqual(expected);
  });

  it('finds the Samples sheet by the path the workbook gives it, whatever the part is called', async () => {
    const buffer = await reordered(await workbookBuffer(), [], ({ name, data }) => ({
      name: name === 'xl/worksheets/sheet1.xml' ? 'xl/worksheets/the-samples.xml' : name,
      data:
        name === 'xl/_rels/workbook.xml.rels'
          ? Buffer.from(data.toString().replace('sheet1.xml', 'the-samples.xml'))
          : data,
    }));
    expect(await samples(buffer)).toEqual(expected);
  });

  it.each([true, false])(
    'reads the Metadata and Samples sheets of every copy read at once (SheetJS, compressed: %s)',
    async (compression) => {
      // exceljs's sequential reader could lose a part under async iteration (a sheet read as empty).
      const reads = Array.from({ length: 40 }, async () => {
        const workbook = await BatchWorkbook.open(sheetJsWorkbook(compression), budgets, workDir);
        for await (const row of workbook.rows()) void row; // every row read, counted
        return workbook;
      });
      for (const workbook of await Promise.all(reads)) {
        try {
          expect(workbook.metadata).toEqual({ registry_code: 'IEABC' });
          expect(workbook.unknownHeaders).toHaveLength(40);
          expect(workbook.rowCount).toBe(2);
        } finally {
          await workbook.dispose();
        }
      }
    },
  );

  it('reads a workbook as exceljs writes it', async () => {
    expect(await samples(await workbookBuffer())).toEqual(expected);
  });

  /** A Samples sheet of `count` rows (several pieces of the sheet's XML), an IGSN column if asked. */
  async function largeWorkbook(count: number, withIgsn: boolean): Promise<Buffer> {
    const workbook = new Workbook();
    const sheet = workbook.addWorksheet('Samples');
    sheet.addRow(['Sample Name', 'Object Type', 'Description', ...(withIgsn ? ['IGSN'] : [])]);
    for (let i = 0; i < count; i++) {
      sheet.addRow([
        `Core ${i}`,
        'Core',
        `a description long enough to fill the sheet ${i}`,
        ...(withIgsn ? [`IEABC${i}`] : []),
      ]);
    }
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }

  async function names(workbook: BatchWorkbook): Promise<string[]> {
    const seen: string[] = [];
    for await (const row of workbook.rows()) seen.push(String(row.cells.get('name')));
    return seen;
  }

  /** The Samples sheet of the workbook's error report with one row's error. */
  async function reportSheet(workbook: BatchWorkbook, rowNumber: number, error: string) {
    const written = await workbook.errorReport(new Map([[rowNumber, error]]));
    const report = new Workbook();
    // exceljs types `load` with its own ArrayBuffer-based Buffer.
    await report.xlsx.load(
      written.buffer.slice(written.byteOffset, written.byteOffset + written.byteLength) as ArrayBuffer,
    );
    return report.getWorksheet('Samples')!;
  }

  const allNames = (count: number) => Array.from({ length: count }, (_, i) => `Core ${i}`);

  it('opens a sheet without an IGSN column after its first rows, and reads the rest as they are asked for', async () => {
    const workbook = await BatchWorkbook.open(await largeWorkbook(3000, false), { ...budgets, maxRows: 5000 }, workDir);
    try {
      expect(workbook.complete).toBe(false);
      expect(workbook.rowCount).toBeLessThan(3000);
      expect(workbook.expectedRows).toBe(3000); // the sheet's dimension, until every row is read
      expect(workbook.igsnCells).toEqual([]);
      expect(await names(workbook)).toEqual(allNames(3000));
      expect(workbook.complete).toBe(true);
      expect(workbook.rowCount).toBe(3000);
      // Its error report parses the upload again (the rows were not written anywhere).
      const report = await reportSheet(workbook, 3001, 'a bad row');
      expect(report.getRow(3001).values).toEqual([
        undefined,
        'Core 2999',
        'Core',
        'a description long enough to fill the sheet 2999',
        'a bad row',
      ]);
      expect(report.rowCount).toBe(3001);
    } finally {
      await workbook.dispose();
    }
  });

  it('reads a sheet with an IGSN column in full when it opens it: the IGSNs it names are known first', async () => {
    const workbook = await BatchWorkbook.open(await largeWorkbook(3000, true), { ...budgets, maxRows: 5000 }, workDir);
    try {
      expect(workbook.complete).toBe(true);
      expect(workbook.rowCount).toBe(3000);
      expect(workbook.igsnCells).toHaveLength(3000);
      expect(await names(workbook)).toEqual(allNames(3000));
      // Its error report comes from the work file the rows were read into.
      const report = await reportSheet(workbook, 2, 'first row');
      expect(report.getRow(2).values).toEqual([
        undefined,
        'Core 0',
        'Core',
        'a description long enough to fill the sheet 0',
        'IEABC0',
        'first row',
      ]);
      expect(report.rowCount).toBe(3001);
    } finally {
      await workbook.dispose();
    }
  });

  it('refuses a sheet past its row budget while its rows are being read, after the first rows were handed out', async () => {
    const workbook = await BatchWorkbook.open(await largeWorkbook(3000, false), { ...budgets, maxRows: 2500 }, workDir);
    const seen: string[] = [];
    try {
      await expect(
        (async () => {
          for await (const row of workbook.rows()) seen.push(String(row.cells.get('name')));
        })(),
      ).rejects.toThrow(
        new BatchWorkbookRefused('The Samples sheet has more than 2500 rows; a batch holds at most 2500.'),
      );
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.length).toBeLessThanOrEqual(2500);
    } finally {
      await workbook.dispose();
    }
  });

  it('says a sheet whose XML breaks after its first rows is unreadable when the rows reach the break', async () => {
    const damaged = await reordered(await largeWorkbook(3000, false), [], ({ name, data }) => ({
      name,
      data:
        name === 'xl/worksheets/sheet1.xml'
          ? Buffer.from(data.toString().replace('<row r="2500"', '<<row r="2500"'))
          : data,
    }));
    const workbook = await BatchWorkbook.open(damaged, { ...budgets, maxRows: 5000 }, workDir);
    try {
      await expect(names(workbook)).rejects.toThrow(BatchWorkbookUnreadable);
    } finally {
      await workbook.dispose();
    }
  });
});
