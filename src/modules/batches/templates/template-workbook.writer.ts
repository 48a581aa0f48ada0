import { DataValidation, Workbook, Worksheet } from 'exceljs';
import { SampleVocabulary } from '../../samples';
import { BatchField } from '../batch-fields';
import { MAX_BATCH_ROWS } from '../xlsx-inspection';

/** Sheet names of the template workbook, in the order they are written (CONTRACT §5). */
export const COVER_SHEET = 'Cover Page';
export const METADATA_SHEET = 'Metadata';
export const SAMPLES_SHEET = 'Samples';
export const LOOKUPS_SHEET = 'Lookups';

/** The dropdowns cover every row an upload may hold. */
export const TEMPLATE_MAX_ROWS = MAX_BATCH_ROWS;

/** The Metadata sheet's `object_type` when the template leaves the object type to each row. */
export const PER_SAMPLE_OBJECT_TYPE = 'Enter per sample in spreadsheet';

/**
 * The lists the dropdowns draw from: a controlled vocabulary of the registry, or one of the
 * template's own preset lists (platforms, archives, collectors).
 */
export type TemplateLookup =
  Exclude<SampleVocabulary, 'archive'> | 'current_archive' | 'original_archive' | 'collector' | 'cruise_field_prgrm';

interface LookupSpec {
  /** Row 1 of the list's column on the Lookups sheet. */
  title: string;
  /**
   * Closed lists refuse other values in Excel (the upload would refuse them too); open lists
   * (presets, the lenient general material type) offer their values but accept anything typed.
   */
  strict: boolean;
}

export const TEMPLATE_LOOKUPS: Record<TemplateLookup, LookupSpec> = {
  object_type: { title: 'Object types', strict: true },
  material_type: { title: 'Material types', strict: false },
  country: { title: 'Countries', strict: true },
  location_method: { title: 'Location methods', strict: true },
  sampling_method: { title: 'Sampling methods', strict: true },
  length_unit: { title: 'Length units', strict: true },
  date_precision: { title: 'Date precisions', strict: true },
  platform_type: { title: 'Platform types', strict: true },
  launch_type: { title: 'Launch types', strict: true },
  platform: { title: 'Platforms', strict: false },
  launch_platform: { title: 'Launch platforms', strict: false },
  current_archive: { title: 'Current archives', strict: false },
  original_archive: { title: 'Original archives', strict: false },
  collector: { title: 'Collectors', strict: false },
  cruise_field_prgrm: { title: 'Cruises and field programs', strict: false },
};

/** Columns without a vocabulary in the catalog that still offer one of the template's preset lists. */
const PRESET_COLUMNS: Partial<Record<string, TemplateLookup>> = {
  collector: 'collector',
  cruise_field_prgrm: 'cruise_field_prgrm',
};

/**
 * The list a column's dropdown draws from, if any. Both archive columns share the `archive`
 * vocabulary but each has its own preset list; the Collector and Cruise/Field Program columns have
 * no vocabulary in the catalog, but offer the template's presets.
 */
export function columnLookup(field: BatchField): TemplateLookup | undefined {
  switch (field.vocabulary) {
    case undefined:
      return PRESET_COLUMNS[field.key];
    case 'archive':
      return field.key === 'original_archive' ? 'original_archive' : 'current_archive';
    default:
      return field.vocabulary;
  }
}

export interface TemplateWorkbookMetadata {
  templateId: number;
  templateVersion: number;
  label: string;
  registryCode: string | null;
  /** Leaf label of the template's object type; null when each row names its own. */
  objectType: string | null;
}

export type TemplateLookupLists = Partial<Record<TemplateLookup, readonly string[]>>;

export interface TemplateWorkbookOptions {
  /** Sample rows covered by the dropdowns (rows 2 to this + 1); default TEMPLATE_MAX_ROWS. */
  validatedRows?: number;
}

/** `dataValidations.add(range, …)` exists at runtime (one `<dataValidation sqref>` per range) but not in the typings. */
type WorksheetWithRangeValidations = Worksheet & {
  dataValidations: { add(range: string, validation: DataValidation): void };
};

const HEADER_FILL = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFDDEBF7' } } as const;
const MIN_WIDTH = 12;
const MAX_WIDTH = 40;

/**
 * Writes the template workbook a user fills in for a batch upload: `Cover Page` (how to fill it
 * in), hidden `Metadata` (registry code, object type, template id and version, read back by the
 * upload), `Samples` (one header row of column labels), hidden `Lookups` (one column per list) and
 * dropdowns on every column with a list. Pure: the caller gathers the lists, so this runs without
 * a database.
 */
export class TemplateWorkbookWriter {
  private readonly validatedRows: number;

  constructor(options: TemplateWorkbookOptions = {}) {
    this.validatedRows = options.validatedRows ?? TEMPLATE_MAX_ROWS;
  }

  async write(
    columns: readonly BatchField[],
    metadata: TemplateWorkbookMetadata,
    lookups: TemplateLookupLists,
  ): Promise<Buffer> {
    const workbook = new Workbook();
    workbook.creator = 'Sample Registry';
    const cover = workbook.addWorksheet(COVER_SHEET);
    const meta = workbook.addWorksheet(METADATA_SHEET, { state: 'veryHidden' });
    const samples = workbook.addWorksheet(SAMPLES_SHEET, { views: [{ state: 'frozen', ySplit: 1 }] });
    const lookupSheet = workbook.addWorksheet(LOOKUPS_SHEET, { state: 'veryHidden' });

    this.writeMetadata(meta, metadata);
    const ranges = this.writeLookups(lookupSheet, columns, lookups);
    this.writeSamples(samples as WorksheetWithRangeValidations, columns, ranges, lookups);
    this.writeCover(cover, metadata);
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }

  private writeMetadata(sheet: Worksheet, metadata: TemplateWorkbookMetadata): void {
    // Text values throughout: the upload reads a key/value table, whatever Excel does to numbers.
    sheet.addRows([
      ['registry_code', metadata.registryCode ?? ''],
      ['object_type', metadata.objectType ?? PER_SAMPLE_OBJECT_TYPE],
      ['template_id', String(metadata.templateId)],
      ['template_version', String(metadata.templateVersion)],
    ]);
    sheet.getColumn(1).width = 20;
    sheet.getColumn(2).width = 40;
  }

  /** One column per list the columns use (first use first); returns each list's absolute range. */
  private writeLookups(
    sheet: Worksheet,
    columns: readonly BatchField[],
    lookups: TemplateLookupLists,
  ): Map<TemplateLookup, string> {
    const ranges = new Map<TemplateLookup, string>();
    for (const field of columns) {
      const lookup = columnLookup(field);
      if (!lookup || ranges.has(lookup)) continue;
      const values = distinct(lookups[lookup] ?? []);
      if (!values.length) continue; // an empty list gets no dropdown: nothing to pick from
      const column = sheet.getColumn(ranges.size + 1);
      [TEMPLATE_LOOKUPS[lookup].title, ...values].forEach((value, index) => {
        sheet.getCell(index + 1, column.number).value = value;
      });
      column.width = widthFor([TEMPLATE_LOOKUPS[lookup].title, ...values]);
      const letter = column.letter;
      ranges.set(lookup, `${LOOKUPS_SHEET}!$${letter}$2:$${letter}$${values.length + 1}`);
    }
    return ranges;
  }

  private writeSamples(
    sheet: WorksheetWithRangeValidations,
    columns: readonly BatchField[],
    ranges: Map<TemplateLookup, string>,
    lookups: TemplateLookupLists,
  ): void {
    const header = sheet.getRow(1);
    columns.forEach((field, index) => {
      const cell = header.getCell(index + 1);
      cell.value = field.label;
      cell.font = { bold: true };
      cell.fill = HEADER_FILL;
      const column = sheet.getColumn(index + 1);
      const lookup = columnLookup(field);
      const range = lookup && ranges.get(lookup);
      column.width = widthFor([field.label, ...(range && lookup ? (lookups[lookup] ?? []) : [])]);
      // Typed values stay as typed: names like 0012, dates as ISO text, IGSNs never become numbers.
      if (field.type !== 'number') column.numFmt = '@';
      const note = headerNote(field, lookup && range ? TEMPLATE_LOOKUPS[lookup].strict : undefined);
      if (note) cell.note = note;
      if (!lookup || !range) return;
      const letter = column.letter;
      sheet.dataValidations.add(`${letter}2:${letter}${this.validatedRows + 1}`, listValidation(field, range, lookup));
    });
  }

  private writeCover(sheet: Worksheet, metadata: TemplateWorkbookMetadata): void {
    const title = sheet.addRow(['Sample Registry: batch registration template']);
    title.font = { bold: true, size: 14 };
    sheet.addRow([]);
    const settings: [string, string][] = [
      ['Template', metadata.label],
      ['Registry code', metadata.registryCode ?? 'Not set: give one when you upload the file'],
      ['Object type', metadata.objectType ?? PER_SAMPLE_OBJECT_TYPE],
      ['Template version', String(metadata.templateVersion)],
    ];
    for (const setting of settings) sheet.addRow(setting).getCell(1).font = { bold: true };
    sheet.addRow([]);
    sheet.addRow(['How to fill in this workbook']).font = { bold: true };
    const required = ['Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)'];
    if (!metadata.objectType) required.unshift('Object Type');
    const steps = [
      `Enter one sample per row on the "${SAMPLES_SHEET}" sheet, from row 2 down. Keep the header row as it is.`,
      `Required in every row: ${required.join(', ')}. Latitude and longitude may stay empty when the batch is saved as a draft.` +
        (metadata.objectType ? ` Rows with an empty Object Type take the template's: ${metadata.objectType}.` : ''),
      'Leave IGSN empty to have one minted under the registry code; fill it in only for samples that already have one.',
      'Dates: YYYY-MM-DD (e.g. 2024-07-13) or an ISO 8601 date-time (e.g. 2024-07-13T14:30:00Z).',
      'Coordinates: decimal degrees (WGS84), latitude -90 to 90, longitude -180 to 180.',
      'Several values in one cell (e.g. Other Name(s), Material Type(s)) are separated by ";".',
      "Columns with a dropdown list the registry's terms; where the list is strict, only its values are accepted.",
      `At most ${TEMPLATE_MAX_ROWS.toLocaleString('en-US')} samples per file.`,
      'The whole file is checked before anything is registered: if a row is invalid nothing is saved, and the ' +
        'batch offers a copy of the file with an Errors column.',
      'Hover over a column header for what it expects.',
    ];
    steps.forEach((step, index) => sheet.addRow([`${index + 1}.`, step]));
    sheet.getColumn(1).width = 18;
    sheet.getColumn(2).width = 110;
  }
}

function listValidation(field: BatchField, range: string, lookup: TemplateLookup): DataValidation {
  if (TEMPLATE_LOOKUPS[lookup].strict) {
    return {
      type: 'list',
      allowBlank: true,
      formulae: [range],
      showErrorMessage: true,
      errorStyle: 'stop',
      errorTitle: field.label,
      error: `Pick a value from the list for ${field.label}.`,
    };
  }
  return { type: 'list', allowBlank: true, formulae: [range], showErrorMessage: false, errorStyle: 'information' };
}

function headerNote(field: BatchField, strict: boolean | undefined): string {
  const parts: string[] = [];
  if (field.help) parts.push(field.help);
  if (field.type === 'list' && !field.help.includes(';')) parts.push('Separate several values with ;');
  if (field.type === 'date' && !field.help) parts.push('YYYY-MM-DD or an ISO 8601 date-time');
  if (strict === true) parts.push('Pick a value from the dropdown.');
  if (strict === false) parts.push('Pick from the dropdown or type another value.');
  return parts.join('\n');
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values.map((value) => value.trim()).filter(Boolean))];
}

function widthFor(texts: readonly string[]): number {
  const longest = texts.reduce((max, text) => Math.max(max, text.length), 0);
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, longest + 2));
}
