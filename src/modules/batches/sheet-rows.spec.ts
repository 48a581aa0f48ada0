import { Workbook } from 'exceljs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { zip } from '../../../test/support/zip';
import { rowCells } from './batch-workbook';
import { sheetRows } from './sheet-rows';
import { inspectWorkbookArchive, workbookArchive } from './xlsx-inspection';
import { XlsxPartsReader } from './xlsx-parts-reader';
import { ZipArchive } from './zip-archive';

/** A row's cells to compare: dates as their time (an invalid date is NaN, which two Dates never equal). */
const comparable = (cells: unknown[]) => cells.map((cell) => (cell instanceof Date ? { date: cell.getTime() } : cell));

/** Every sheet's rows, read by exceljs's WorksheetReader (`row.number`, `row.values`) and by sheetRows. */
async function bothReaders(buffer: Buffer): Promise<{ exceljs: unknown[]; lean: unknown[] }> {
  const layout = await inspectWorkbookArchive(buffer, 1e8);
  const exceljs: unknown[] = [];
  const lean: unknown[] = [];
  for (const sheet of layout.sheets) {
    const byExceljs = (await XlsxPartsReader.open(workbookArchive(buffer))).worksheet(sheet.path);
    for await (const row of byExceljs) {
      exceljs.push({ sheet: sheet.name, number: row.number, cells: comparable(rowCells(row.values as unknown[])) });
    }
    const byLean = (await XlsxPartsReader.open(workbookArchive(buffer))).worksheet(sheet.path);
    for await (const rows of sheetRows(byLean)) {
      for (const row of rows)
        lean.push({ sheet: sheet.name, number: row.number, cells: comparable(rowCells(row.values)) });
    }
  }
  return { exceljs, lean };
}

async function expectSameRows(buffer: Buffer): Promise<unknown[]> {
  const { exceljs, lean } = await bothReaders(buffer);
  expect(lean).toStrictEqual(exceljs);
  return lean;
}

/** A workbook exceljs writes, with every kind of value it stores. */
async function exceljsWorkbook(): Promise<Buffer> {
  const workbook = new Workbook();
  const sheet = workbook.addWorksheet('Samples');
  sheet.addRow(['Sample Name', 'Object Type', 'Sampling Start Date', 'Elevation', 'Flag']);
  sheet.addRow(['Core A', 'Core', new Date(Date.UTC(2024, 4, 17)), 12.5, true]);
  sheet.addRow(['', 'Core', new Date(Date.UTC(2023, 0, 2, 10, 30)), 0, false]);
  sheet.getColumn(3).numFmt = 'yyyy-mm-dd';
  const row = sheet.addRow([]);
  row.getCell(1).value = { formula: 'A2&"x"', result: 'Core Ax' };
  row.getCell(2).value = { formula: '1-1', result: 0 };
  row.getCell(3).value = { formula: 'C2+1', result: 45430 };
  row.getCell(3).numFmt = 'dd/mm/yyyy';
  row.getCell(4).value = { richText: [{ text: 'rich ' }, { font: { bold: true }, text: 'text' }] };
  row.getCell(5).value = { error: '#N/A' };
  row.getCell(7).value = { text: 'a link', hyperlink: 'https://example.org' };
  row.getCell(12).value = 'far right';
  const styled = sheet.addRow([45000, 'x']);
  styled.numFmt = 'yyyy-mm-dd';
  sheet.addRow([]);
  sheet.addRow([null, null, 'after a blank row']);
  sheet.mergeCells('A8:C8');
  sheet.getCell('A8').value = 'merged';
  const metadata = workbook.addWorksheet('Metadata');
  metadata.addRow(['registry_code', 'IEABC']);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** The workbook with its first sheet's XML replaced (the styles of exceljsWorkbook: 1 is a date format). */
async function withSheetXml(rowsXml: string): Promise<Buffer> {
  const archive = new ZipArchive(await exceljsWorkbook(), 100);
  const parts = [];
  for (const entry of archive.entries) {
    const inflated = await archive.inflate(entry, { limit: 1e8, maxRatio: 1e6, keep: 1e8 });
    parts.push({
      name: entry.name,
      data:
        entry.name === 'xl/worksheets/sheet1.xml'
          ? Buffer.from(
              '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
                '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
                `<cols><col min="1" max="3" width="12" style="1"/></cols><sheetData>${rowsXml}</sheetData></worksheet>`,
            )
          : inflated.head,
    });
  }
  return zip(parts);
}

describe('sheetRows: the rows exceljs reads, without its row and cell objects', () => {
  it('reads a workbook exceljs writes as exceljs does (every kind of value, sparse, styled and merged rows)', async () => {
    const rows = await expectSameRows(await exceljsWorkbook());
    expect(rows.length).toBeGreaterThan(6);
  });

  it("reads every sheet of SESAR2's filled-in batch template as exceljs does", async () => {
    const template = readFileSync(
      join(__dirname, '../../../test/fixtures/batch/sesar2_template_v8_reconstructed_filled.xlsx'),
    );
    const rows = await expectSameRows(template);
    expect(rows.length).toBeGreaterThan(3);
  });

  it.each([true, false])('reads a workbook SheetJS writes as exceljs does (shared strings: %s)', async (bookSST) => {
    const workbook = XLSX.utils.book_new();
    const sheet = XLSX.utils.aoa_to_sheet(
      [
        ['Sample Name', 'Date', 'Number', 'Bool'],
        ['Core <A> & "B"', new Date(Date.UTC(2024, 4, 17)), -1.25, true],
        ['', null, 0, false],
        [undefined, undefined, undefined, 'last'],
      ],
      { cellDates: true },
    );
    XLSX.utils.book_append_sheet(workbook, sheet, 'Samples');
    await expectSameRows(XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', bookSST }) as Buffer);
  });

  it('reads what other writers put in a sheet as exceljs does', async () => {
    const rows = [
      // pretty-printed, with blanks between and inside cells
      `<row r="1">\n  <c r="A1" t="inlineStr">\n    <is><t>Sample Name</t></is>\n  </c>\n  <c r="B1" t="str">\n <v>Object Type </v>\n </c>\n</row>`,
      // rich inline runs, a phonetic run, entities, Excel's escapes
      `<row r="2"><c r="A2" t="inlineStr"><is><r><t>a</t></r><r><t>b</t></r></is></c>` +
        `<c r="B2" t="inlineStr"><is><t>漢字</t><rPh sb="0" eb="2"><t>カンジ</t></rPh></is></c>` +
        `<c r="C2" t="str"><v>&lt;x&gt; &amp; _x000D_y</v></c></row>`,
      // a row styled as dates, cells with and without their own style, a duplicate cell
      `<row r="3" s="1" customFormat="1"><c r="A3"><v>45000</v></c><c r="B3" s="0"><v>45001</v></c>` +
        `<c r="C3" s="1"><v>45002.5</v></c><c r="C3"><v>7</v></c><c r="D3"><v>3</v></c></row>`,
      // errors, booleans, an empty value, a cell without value, formulas with and without results
      `<row r="4"><c r="A4" t="e"><v>#DIV/0!</v></c><c r="B4" t="b"><v>1</v></c><c r="C4"><v></v></c>` +
        `<c r="D4"/><c r="E4"><f t="shared" ref="E4:E5" si="0">A1+1</f><v>0</v></c>` +
        `<c r="F4"><f>A1</f></c><c r="G4" t="str"><f>X</f><v>a&amp;b</v></c><c r="H4" t="s"><v>9999</v></c></row>`,
      `<row r="5"><c r="E5"><f t="shared" si="0"/><v>5</v></c><c r="F5"><f t="shared" si="0"/></c>` +
        `<c r="G5" s="1"><v>not a number</v></c><c r="H5" t="inlineStr"><is></is></c><c r="J5" t="b"><v>0</v></c></row>`,
      // rows out of order, a row without a number, cells beyond Z
      `<row r="9"><c r="AA9" t="inlineStr"><is><t>far</t></is></c></row><row r="7"><c r="A7" s="1"><v>1</v></c><c r="A7"><v>2</v></c></row>`,
      // past the first 100 rows and columns (exceljs caches the addresses of those only), a reference
      // with more after its row, text between and after a cell's parts
      `<row r="150"><c r="CX150" t="inlineStr"><is><t>beyond</t></is></c><c r="B150C7"><v>1</v></c>` +
        `<c r="D150" t="str">before<f>A1</f>between<v>x</v>after</c>outside<c r="E150"><v>2</v></c></row>`,
    ];
    const read = await expectSameRows(await withSheetXml(rows.join('\n')));
    expect(read.length).toBeGreaterThanOrEqual(rows.length + 1);
  });

  it.each([
    ['a cell without an address', '<row r="1"><c t="inlineStr"><is><t>x</t></is></c></row>', TypeError],
    ['a row without a number', '<row><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>', /Invalid Address/],
    ['a column past XFD', '<row r="1"><c r="XFE1"><v>1</v></c></row>', /Out of bounds/],
    // (exceljs fails building the cell, "A Cell needs a Row"; sheetRows on the address it checks first)
    ['a lower-case column', '<row r="1"><c r="a1"><v>1</v></c></row>', /A Cell needs a Row|Invalid Address/],
    ['a negative row number', '<row r="-1"><c r="A1"><v>1</v></c></row>', /Invalid Address/],
    [
      'a row number too large to be written with digits',
      '<row r="1000000000000000000000"><c r="A1"><v>1</v></c></row>',
      /Invalid Address/,
    ],
  ])('fails as exceljs does on %s', async (_case, rowsXml, error) => {
    const buffer = await withSheetXml(rowsXml);
    const sheetPath = (await inspectWorkbookArchive(buffer, 1e8)).samplesSheet?.path as string;
    const readAll = async (rows: AsyncIterable<unknown>) => {
      for await (const row of rows) void row;
    };
    await expect(readAll((await XlsxPartsReader.open(workbookArchive(buffer))).worksheet(sheetPath))).rejects.toThrow(
      error,
    );
    await expect(
      readAll(sheetRows((await XlsxPartsReader.open(workbookArchive(buffer))).worksheet(sheetPath))),
    ).rejects.toThrow(error);
  });
});
