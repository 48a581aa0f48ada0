import { DataValidation, Workbook } from 'exceljs';
import * as XLSX from 'xlsx';
import { BATCH_FIELDS, templateColumns } from '../batch-fields';
import {
  LOOKUPS_SHEET,
  PER_SAMPLE_OBJECT_TYPE,
  TEMPLATE_MAX_ROWS,
  TemplateLookupLists,
  TemplateWorkbookMetadata,
  TemplateWorkbookWriter,
} from './template-workbook.writer';

const SELECTED = [
  'general_material_type',
  'sample_description',
  'elevation_unit',
  'sampling_start_date',
  'sampling_date_precision',
  'country',
  'location_method',
  'collector',
  'platform_label',
  'current_archive',
  'original_archive',
];

const LOOKUPS: TemplateLookupLists = {
  object_type: ['Core', 'Thin section', 'Individual sample'],
  material_type: ['Rock', 'Sediment'],
  length_unit: ['meters', 'kilometers', 'feet', 'miles'],
  date_precision: ['year', 'month', 'day', 'time'],
  country: ["Côte d'Ivoire", 'United States', 'Viet Nam'],
  location_method: ['GPS', 'Map'],
  collector: ['Jane Doe', 'John Roe'],
  platform: ['R/V Atlantis', 'R/V Atlantis', ' '], // repeats and blanks are dropped
  current_archive: ['Lamont-Doherty Core Repository'],
  original_archive: [], // an empty preset list: no dropdown
};

const METADATA: TemplateWorkbookMetadata = {
  templateId: 42,
  templateVersion: 3,
  label: 'Cruise AT-42 cores',
  registryCode: 'IEABC',
  objectType: 'Core',
};

/** The columns a validation formula's range covers on the Lookups sheet, e.g. `Lookups!$B$2:$B$3`. */
function lookupValues(lookups: XLSX.WorkSheet, formula: string): string[] {
  const match = /^Lookups!\$([A-Z]+)\$(\d+):\$([A-Z]+)\$(\d+)$/.exec(formula);
  if (!match) throw new Error(`not a Lookups range: ${formula}`);
  const values: string[] = [];
  for (let row = Number(match[2]); row <= Number(match[4]); row++) {
    values.push(String((lookups[`${match[1]}${row}`] as XLSX.CellObject).v));
  }
  return values;
}

/** `<dataValidation>` elements of a sheet, read from the raw XML (SheetJS's free build does not parse them). */
function rawValidations(buffer: Buffer, sheetIndex: number): { sqref: string; formula: string; attributes: string }[] {
  const book = XLSX.read(buffer, { type: 'buffer', bookFiles: true }) as XLSX.WorkBook & {
    Directory: { sheets: string[] };
    files: Record<string, { content: Uint8Array }>;
  };
  const path = book.Directory.sheets[sheetIndex].replace(/^\//, '');
  const xml = Buffer.from(book.files[path].content).toString('utf8');
  return [...xml.matchAll(/<dataValidation ([^>]*)><formula1>([^<]*)<\/formula1><\/dataValidation>/g)].map((m) => ({
    attributes: m[1],
    sqref: /sqref="([^"]+)"/.exec(m[1])?.[1] ?? '',
    formula: m[2],
  }));
}

describe('TemplateWorkbookWriter', () => {
  const columns = templateColumns(SELECTED);
  const labels = columns.map((field) => field.label);
  let buffer: Buffer;

  beforeAll(async () => {
    buffer = await new TemplateWorkbookWriter({ validatedRows: 50 }).write(columns, METADATA, LOOKUPS);
  });

  describe('read back with xlsx (SheetJS)', () => {
    let book: XLSX.WorkBook;
    beforeAll(() => {
      book = XLSX.read(buffer, { type: 'buffer' });
    });

    it('has Cover Page, Metadata, Samples and Lookups in that order, Metadata and Lookups hidden', () => {
      expect(book.SheetNames).toEqual(['Cover Page', 'Metadata', 'Samples', 'Lookups']);
      // 0 visible, 2 very hidden (cannot be unhidden from Excel's menu, like the reference template)
      expect(book.Workbook?.Sheets?.map((sheet) => sheet.Hidden)).toEqual([0, 2, 0, 2]);
    });

    it('writes the column labels in row 1 of Samples, in catalog order, with the help as a note', () => {
      const [header] = XLSX.utils.sheet_to_json<string[]>(book.Sheets.Samples, { header: 1 });
      expect(header).toEqual(labels);
      expect(header.slice(0, 3)).toEqual(['Object Type', 'Sample Name', 'IGSN']);
      const note = (book.Sheets.Samples.A1 as XLSX.CellObject).c?.[0]?.t;
      expect(note).toContain('Object type label, e.g. Core');
      expect(note).toContain('Pick a value from the dropdown.');
    });

    it('writes the Metadata settings as key/value rows', () => {
      const rows = XLSX.utils.sheet_to_json<string[]>(book.Sheets.Metadata, { header: 1 });
      expect(rows).toEqual([
        ['registry_code', 'IEABC'],
        ['object_type', 'Core'],
        ['template_id', '42'],
        ['template_version', '3'],
      ]);
    });

    it('says how to fill it in on the Cover Page', () => {
      const text = XLSX.utils
        .sheet_to_json<string[]>(book.Sheets['Cover Page'], { header: 1 })
        .map((row) => row.join(' '))
        .join('\n');
      for (const expected of ['IEABC', 'Core', 'one sample per row', 'YYYY-MM-DD', '";"', '100,000', 'Sample Name']) {
        expect(text).toContain(expected);
      }
    });

    it('keeps one column per list on Lookups, without repeats, blanks or empty lists', () => {
      const columnsOnLookups = XLSX.utils.sheet_to_json<string[]>(book.Sheets[LOOKUPS_SHEET], { header: 1 });
      const byTitle = new Map<string, string[]>();
      columnsOnLookups[0].forEach((title, index) => {
        byTitle.set(
          title,
          columnsOnLookups
            .slice(1)
            .map((row) => row[index])
            .filter(Boolean),
        );
      });
      expect(byTitle.get('Object types')).toEqual(LOOKUPS.object_type);
      expect(byTitle.get('Countries')).toEqual(LOOKUPS.country);
      expect(byTitle.get('Length units')).toEqual(['meters', 'kilometers', 'feet', 'miles']);
      expect(byTitle.get('Platforms')).toEqual(['R/V Atlantis']);
      expect(byTitle.has('Original archives')).toBe(false);
      expect(byTitle.has('Sampling methods')).toBe(false); // no column uses it
    });

    it('puts a dropdown on every vocabulary column, pointing at its Lookups range', () => {
      const validations = rawValidations(buffer, 2);
      const lookups = book.Sheets[LOOKUPS_SHEET];
      const byColumn = new Map(validations.map((v) => [labels[XLSX.utils.decode_cell(v.sqref.split(':')[0]).c], v]));
      expect([...byColumn.keys()].sort()).toEqual(
        [
          'Object Type',
          'General Material Type',
          'Elevation Unit',
          'Sampling Date Precision',
          'Country',
          'Location Method',
          'Collector',
          'Platform Name',
          'Current Archive',
        ].sort(),
      );
      expect(byColumn.get('Object Type')?.sqref).toBe('A2:A51');
      expect(lookupValues(lookups, byColumn.get('Object Type')?.formula ?? '')).toEqual(LOOKUPS.object_type);
      expect(lookupValues(lookups, byColumn.get('Country')?.formula ?? '')).toEqual(LOOKUPS.country);
      expect(lookupValues(lookups, byColumn.get('Collector')?.formula ?? '')).toEqual(LOOKUPS.collector);
      expect(byColumn.get('Country')?.attributes).toContain('showErrorMessage="1"');
      expect(byColumn.get('Platform Name')?.attributes).not.toContain('showErrorMessage');
    });
  });

  describe('read back with exceljs', () => {
    let book: Workbook;
    beforeAll(async () => {
      book = new Workbook();
      // exceljs types `load` with its own ArrayBuffer-based Buffer.
      await book.xlsx.load(
        buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer,
      );
    });

    it('keeps sheet order and hidden states', () => {
      expect(book.worksheets.map((sheet) => [sheet.name, sheet.state])).toEqual([
        ['Cover Page', 'visible'],
        ['Metadata', 'veryHidden'],
        ['Samples', 'visible'],
        ['Lookups', 'veryHidden'],
      ]);
    });

    it('has a bold, frozen header row with readable widths', () => {
      const samples = book.getWorksheet('Samples');
      const header = samples?.getRow(1);
      expect(labels.map((_, index) => header?.getCell(index + 1).value)).toEqual(labels);
      expect(header?.getCell(1).font?.bold).toBe(true);
      expect(samples?.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      for (let index = 1; index <= labels.length; index++) {
        expect(samples?.getColumn(index).width).toBeGreaterThanOrEqual(12);
      }
    });

    it('makes closed vocabularies strict and presets open', () => {
      const samples = book.getWorksheet('Samples') as unknown as {
        dataValidations: { model: Record<string, DataValidation> };
      };
      const at = (label: string, row: number) =>
        samples.dataValidations.model[`${XLSX.utils.encode_col(labels.indexOf(label))}${row}`];
      for (const label of ['Object Type', 'Elevation Unit', 'Sampling Date Precision', 'Country', 'Location Method']) {
        expect(at(label, 2)).toMatchObject({ type: 'list', showErrorMessage: true, errorStyle: 'stop' });
        expect(at(label, 51)).toBeDefined();
        expect(at(label, 52)).toBeUndefined();
      }
      for (const label of ['General Material Type', 'Collector', 'Platform Name', 'Current Archive']) {
        expect(at(label, 2)).toMatchObject({ type: 'list', errorStyle: 'information' });
        expect(at(label, 2).showErrorMessage).toBeFalsy();
      }
      for (const label of ['Sample Name', 'Original Archive', 'Sampling Start Date']) {
        expect(at(label, 2)).toBeUndefined();
      }
      expect(at('Object Type', 2).formulae).toEqual([`${LOOKUPS_SHEET}!$A$2:$A$4`]);
    });
  });

  it('leaves the object type to each row when the template has none', async () => {
    const written = await new TemplateWorkbookWriter({ validatedRows: 5 }).write(
      templateColumns([]),
      { ...METADATA, registryCode: null, objectType: null },
      { object_type: ['Core'] },
    );
    const rows = XLSX.utils.sheet_to_json<string[]>(XLSX.read(written).Sheets.Metadata, { header: 1, defval: '' });
    expect(rows.slice(0, 2)).toEqual([
      ['registry_code', ''],
      ['object_type', PER_SAMPLE_OBJECT_TYPE],
    ]);
  });

  it('covers all 100,000 sample rows with each dropdown, in a small file (one range per column)', async () => {
    const everyColumn = templateColumns(BATCH_FIELDS.map((field) => field.key));
    const countries = Array.from({ length: 250 }, (_, index) => `Country ${index}`);
    const written = await new TemplateWorkbookWriter().write(everyColumn, METADATA, { ...LOOKUPS, country: countries });
    const validations = rawValidations(written, 2);
    expect(validations.length).toBeGreaterThanOrEqual(9);
    for (const validation of validations)
      expect(validation.sqref).toMatch(new RegExp(`^[A-Z]+2:[A-Z]+${TEMPLATE_MAX_ROWS + 1}$`));
    expect(written.length).toBeLessThan(100 * 1024); // one range per column, not one entry per cell
  });
});
