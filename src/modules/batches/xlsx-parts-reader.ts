import { stream as excelStream } from 'exceljs';
import { Readable } from 'node:stream';
import { ZipArchive } from './zip-archive';

type WorksheetReader = excelStream.xlsx.WorksheetReader;

/**
 * The parts of exceljs's streaming WorkbookReader this reader drives (exceljs 4.4, pinned by the
 * lockfile; the unit tests fail if they change). Each takes the part's inflated bytes as a stream.
 */
interface WorkbookReaderParts {
  _parseRels(part: Readable): Promise<void>;
  _parseWorkbook(part: Readable): Promise<void>;
  _parseStyles(part: Readable): Promise<void>;
  _parseSharedStrings(part: Readable): AsyncGenerator<unknown>;
  _parseWorksheet(part: Readable, id: string): Generator<{ eventType: string; value: WorksheetReader }>;
}

const PART = {
  rels: 'xl/_rels/workbook.xml.rels',
  workbook: 'xl/workbook.xml',
  styles: 'xl/styles.xml',
  sharedStrings: 'xl/sharedStrings.xml',
};

/**
 * An .xlsx read part by part through its central directory, with exceljs's streaming parsers:
 * the workbook, styles and shared strings first, then exactly the sheets asked for, each inflated
 * as its rows are read. exceljs's own WorkbookReader reads the archive in one sequential pass
 * (unzipper's Parse), which depends on the order the writer stored the parts in and may lose
 * entries under async iteration (exceljs issues 2790 and 3064): a lost sheet read as an empty one.
 * Here a sheet is found by the path the workbook gives it, whatever the order or its file name.
 *
 * Call after the archive was inspected (inspectWorkbookArchive): every part inflates within the
 * budgets by then, so the parts are not counted again here.
 */
export class XlsxPartsReader {
  private constructor(
    private readonly archive: ZipArchive,
    private readonly reader: WorkbookReaderParts,
  ) {}

  static async open(archive: ZipArchive): Promise<XlsxPartsReader> {
    const reader = new excelStream.xlsx.WorkbookReader(Readable.from([]), {
      worksheets: 'emit',
      sharedStrings: 'cache',
      hyperlinks: 'ignore',
      // Styles say which numbers are dates.
      styles: 'cache',
      entries: 'ignore',
    }) as unknown as WorkbookReaderParts;
    const parts = new XlsxPartsReader(archive, reader);
    await reader._parseRels(parts.part(PART.rels) ?? Readable.from([]));
    await reader._parseWorkbook(parts.part(PART.workbook) ?? Readable.from([]));
    const styles = parts.part(PART.styles);
    if (styles) await reader._parseStyles(styles);
    // Without a shared strings part every string is inline: an empty table.
    for await (const event of reader._parseSharedStrings(parts.part(PART.sharedStrings) ?? Readable.from([]))) {
      void event; // 'cache' mode keeps them on the reader
    }
    return parts;
  }

  /** The sheet stored at `path` (as the workbook's relationships name it), read row by row. */
  worksheet(path: string): WorksheetReader {
    const part = this.part(path);
    if (!part) throw new Error(`The workbook names ${path} but the archive has no such part.`);
    const [first] = [...this.reader._parseWorksheet(part, path)];
    return first.value;
  }

  private part(name: string): Readable | undefined {
    const entry = this.archive.entry(name);
    return entry ? this.archive.open(entry) : undefined;
  }
}
