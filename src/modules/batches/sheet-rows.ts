import { stream as excelStream } from 'exceljs';
import { Readable } from 'node:stream';
import { SheetXmlHandler, SheetXmlScanner } from './sheet-xml';

/*
 * exceljs 4.4's own helpers (pinned by the lockfile, as XlsxPartsReader's parts are): the decoding
 * of its worksheet reader's XML, the column letters' cache, and its text and date conversions.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const { bufferToString } = require('exceljs/lib/utils/browser-buffer-decode') as {
  bufferToString(chunk: Buffer | string): string;
};
const colCache = require('exceljs/lib/utils/col-cache') as {
  decodeAddress(ref: string): { col: number };
  encodeAddress(row: number, col: number): string;
  validateAddress(address: string): boolean;
};
const excelUtils = require('exceljs/lib/utils/utils') as {
  xmlDecode(text: string): string;
  isDateFmt(format: unknown): boolean;
  excelToDate(value: number, date1904: unknown): Date;
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** What exceljs's WorksheetReader keeps of the workbook it belongs to and of its part. */
interface ReaderInternals {
  iterator: Readable;
  workbook: {
    sharedStrings?: unknown[];
    styles: { getStyleModel(id: number): { numFmt?: unknown } | null | undefined };
    properties?: { model?: { date1904?: unknown } };
  };
}

/** A cell's value as exceljs shows it once read (`cell.value`), before it is made plain. */
export type ExcelCellValue = string | number | boolean | Date | Record<string, unknown>;

/** One row of a sheet: its number (the `r` attribute) and `row.values` (1-based, sparse), as exceljs gives them. */
export interface SheetRow {
  number: number;
  values: (ExcelCellValue | undefined)[];
}

/**
 * The cell being read: its column and the text of its formula and value, as exceljs's parse state
 * holds them. One object for the whole sheet, reset at each `<c>`: nothing of it outlives the cell.
 */
interface OpenCell {
  col: number;
  type: string | undefined;
  numFmt: unknown;
  /** The formula's text, undefined when the cell has no `<f>`. */
  formula: string | undefined;
  /** The value's text, undefined when the cell has no `<v>`, `<is>` or `<t>`. */
  value: string | undefined;
}

/** Where text goes: exceljs appends it to the holder last opened (`<f>`, or `<v>`/`<is>`/`<t>`), even after it closed. */
const enum TextTarget {
  None,
  Formula,
  Value,
}

/**
 * The column of a cell reference, as exceljs's `colCache.decodeAddress(ref).col` gives it, without
 * the address object and strings it builds for every cell past the first 100 rows and columns; any
 * reference it would refuse (none, a column past XFD) goes to it, to fail as it does.
 */
function columnOf(ref: string | undefined): number {
  if (typeof ref !== 'string') return colCache.decodeAddress(ref as unknown as string).col;
  let col = 0;
  let hasCol = false;
  let hasRow = false;
  for (let i = 0; i < ref.length; i++) {
    const char = ref.charCodeAt(i);
    if (!hasRow && char >= 65 && char <= 90) {
      hasCol = true;
      col = col * 26 + char - 64;
    } else if (char >= 48 && char <= 57) {
      hasRow = true;
    } else if (hasRow && hasCol && char !== 36) {
      break;
    }
  }
  return hasCol && col <= 16384 ? col : colCache.decodeAddress(ref).col;
}

/**
 * exceljs's check of the address it builds for a new cell (`validateAddress(encodeAddress(row,
 * col))`): a column from A to XFD and a row number written with digits only. Only an address that
 * fails the cheap check is built, to fail with exceljs's own error.
 */
function checkCellAddress(rowNumber: number, col: number): void {
  const valid =
    Number.isInteger(col) &&
    col >= 1 &&
    col <= 16384 &&
    Number.isInteger(rowNumber) &&
    rowNumber >= 0 &&
    rowNumber < 1e21;
  if (!valid) colCache.validateAddress(colCache.encodeAddress(rowNumber, col));
}

/**
 * The rows of a sheet, a few at a time, read with exceljs's worksheet parse, but without the row,
 * cell and value objects it builds for each (and their styles merged per cell), which a batch does
 * not use, and without saxes's objects for every tag and attribute (SheetXmlScanner): most of the
 * reader's cost for a 50,000-row sheet. Each row's `values` are those exceljs's `row.values` holds for
 * the same XML — the same value types (a formula's copied model, a shared string's rich text, an
 * error, a date by the cell's or the row's number format) and the same cells left out (those without
 * a value); the unit tests compare both on the same workbooks, and XML that saxes refuses fails.
 */
export async function* sheetRows(sheet: excelStream.xlsx.WorksheetReader): AsyncGenerator<SheetRow[]> {
  const { iterator, workbook } = sheet as unknown as ReaderInternals;
  const reader = new SheetRowsReader(workbook);
  for await (const piece of iterator) {
    // Each piece decoded on its own, as exceljs's parse does (a character cut in two reads as U+FFFD).
    reader.scanner.write(bufferToString(piece as Buffer));
    // The rows of each piece of the part at once (a promise a piece, not a row).
    const rows = reader.takeRows();
    if (rows.length) yield rows;
  }
}

/** exceljs's WorksheetReader.parse on the scanner's tags and text, keeping only what `row.values` needs. */
class SheetRowsReader implements SheetXmlHandler {
  readonly scanner = new SheetXmlScanner(this);
  private rows: SheetRow[] = [];
  private inRows = false;
  private row: SheetRow | undefined;
  private rowNumFmt: unknown;
  private cellNumFmts: unknown[] = [];
  private readonly cell: OpenCell = {
    col: 0,
    type: undefined,
    numFmt: undefined,
    formula: undefined,
    value: undefined,
  };
  private inCell = false;
  private target = TextTarget.None;
  private readonly sharedStrings: unknown[] | undefined;
  private readonly styles: ReaderInternals['workbook']['styles'];
  private readonly date1904: unknown;

  constructor(workbook: ReaderInternals['workbook']) {
    this.sharedStrings = workbook.sharedStrings;
    this.styles = workbook.styles;
    this.date1904 = workbook.properties?.model?.date1904;
  }

  takeRows(): SheetRow[] {
    const { rows } = this;
    this.rows = [];
    return rows;
  }

  text(text: string): void {
    if (this.target === TextTarget.Formula) this.cell.formula += text;
    else if (this.target === TextTarget.Value) this.cell.value += text;
  }

  openTag(name: string): void {
    const { cell, scanner } = this;
    switch (name) {
      case 'sheetData':
        this.inRows = true;
        break;
      case 'row':
        if (this.inRows) {
          this.row = { number: parseInt(scanner.attribute('r') as string, 10), values: [] };
          this.cellNumFmts = [];
          this.rowNumFmt = undefined;
          const style = scanner.attribute('s');
          if (style) this.rowNumFmt = this.styles.getStyleModel(parseInt(style, 10))?.numFmt;
        }
        break;
      case 'c':
        if (this.row) {
          const col = columnOf(scanner.attribute('r'));
          if (!(col in this.cellNumFmts)) {
            // exceljs builds the cell here, from the row's number and the column (an invalid one throws).
            checkCellAddress(this.row.number, col);
            // A cell's format is its style's when it has one (a non-zero `s` naming a style), else its row's.
            this.cellNumFmts[col] = this.rowNumFmt;
          }
          const styleId = parseInt(scanner.attribute('s') as string, 10);
          if (styleId) {
            const style = this.styles.getStyleModel(styleId);
            if (style) this.cellNumFmts[col] = style.numFmt;
          }
          cell.col = col;
          cell.type = scanner.attribute('t');
          cell.numFmt = this.cellNumFmts[col];
          cell.formula = undefined;
          cell.value = undefined;
          this.inCell = true;
          // The text before this cell's first holder went to the last cell's (exceljs): it is dropped.
          this.target = TextTarget.None;
        }
        break;
      case 'f':
        if (this.inCell) {
          cell.formula = '';
          this.target = TextTarget.Formula;
        }
        break;
      case 'v':
      case 'is':
      case 't':
        if (this.inCell) {
          cell.value = '';
          this.target = TextTarget.Value;
        }
        break;
      default:
        break;
    }
  }

  closeTag(name: string): void {
    switch (name) {
      case 'sheetData':
        this.inRows = false;
        break;
      case 'row':
        // (exceljs hands on a row it never opened, one outside the sheet's data, as null, and the reader fails on it.)
        if (!this.row) throw new Error('The sheet has a row outside its data.');
        this.rows.push(this.row);
        this.row = undefined;
        break;
      case 'c':
        if (this.row && this.inCell) {
          const value = cellValue(this.cell, this.sharedStrings, this.date1904);
          if (value !== NOT_SET) this.row.values[this.cell.col] = value;
          this.inCell = false;
          // The text after it would go to its holder (exceljs): nothing reads it again.
          this.target = TextTarget.None;
        }
        break;
      default:
        break;
    }
  }
}

/** The cell had neither a formula nor a value: exceljs leaves it as it was. */
const NOT_SET = Symbol('not set');

/** exceljs's value for the cell (WorksheetReader.parse, then the Cell's value type), or NOT_SET. */
function cellValue(
  cell: OpenCell,
  sharedStrings: unknown[] | undefined,
  date1904: unknown,
): ExcelCellValue | undefined | typeof NOT_SET {
  const { formula, value, type } = cell;
  if (formula !== undefined) {
    const result = value !== undefined ? (type === 'str' ? excelUtils.xmlDecode(value) : parseFloat(value)) : undefined;
    // A formula with text is a Formula value, whose model keeps only the fields that are truthy; a
    // shared formula's other cells (no text) are JSON values, kept as given.
    if (!formula) return { formula, result };
    return result ? { formula, result } : { formula };
  }
  if (value === undefined) return NOT_SET;
  switch (type) {
    case 's': {
      const index = parseInt(value, 10);
      const shared = sharedStrings ? sharedStrings[index] : { sharedString: index };
      return shared === null ? undefined : (shared as ExcelCellValue | undefined);
    }
    case 'inlineStr':
    case 'str':
      return excelUtils.xmlDecode(value);
    case 'e':
      return { error: value };
    case 'b':
      return parseInt(value, 10) !== 0;
    default:
      return excelUtils.isDateFmt(cell.numFmt)
        ? excelUtils.excelToDate(parseFloat(value), date1904)
        : parseFloat(value);
  }
}
