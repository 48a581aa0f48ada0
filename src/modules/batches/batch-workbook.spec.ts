import { Workbook } from 'exceljs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zip } from '../../../test/support/zip';
import { BatchWorkbook } from './batch-workbook';
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

/** The same parts re-zipped in the given order (names not listed keep their order, at the end). */
async function reordered(buffer: Buffer, first: string[]): Promise<Buffer> {
  const archive = new ZipArchive(buffer, 100);
  const rank = (name: string) => (first.includes(name) ? first.indexOf(name) : first.length);
  const names = archive.entries.map((entry) => entry.name).sort((a, b) => rank(a) - rank(b));
  const parts = [];
  for (const name of names) {
    const inflated = await archive.inflate(archive.entry(name)!, { limit: 1e8, maxRatio: 1e6, keep: 1e8 });
    parts.push({ name, data: inflated.head });
  }
  return zip(parts);
}

describe('BatchWorkbook', () => {
  let workDir: string;
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'batch-workbook-spec-'));
  });
  afterAll(() => rm(workDir, { recursive: true, force: true }));

  async function samples(buffer: Buffer): Promise<[string, unknown][]> {
    const workbook = await BatchWorkbook.read(buffer, budgets, workDir);
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

  it('reads a workbook as exceljs writes it', async () => {
    expect(await samples(await workbookBuffer())).toEqual(expected);
  });
});
