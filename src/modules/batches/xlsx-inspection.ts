import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../../core/http/api-error';
import { XmlCharacterProblem, firstXmlTag, xmlStartTags } from './xml-tags';
import { ZipArchive, ZipProblem } from './zip-archive';

export const MAX_BATCH_ROWS = 100_000;
/** Entries inflating past 1 MiB at more than this ratio are refused (zip bombs). */
const MAX_ENTRY_RATIO = 200;
const MAX_ENTRIES = 2_000;
/**
 * workbook.xml and its relationships: a few kilobytes in real workbooks (one `<sheet>` per sheet).
 * A part larger than this is refused by name rather than read.
 */
export const MAX_STRUCTURE_BYTES = 256 * 1024;
/** Where the sheet's `<dimension>` is looked for: it comes right after the sheet's properties. */
const DIMENSION_WINDOW_BYTES = 64 * 1024;

const ZIP_LOCAL = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** Office "encrypted package" and legacy .xls files are OLE compound documents. */
const OLE_COMPOUND = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/**
 * Parts a streaming reader needs before any sheet: the sheet names and their relationships, the
 * styles (which numbers are dates) and the shared strings. Writers store parts in any order.
 */

function bad(message: string): ApiError {
  return ApiError.badRequest(message, { file: [message] });
}

function structureTooLarge(part: string): ApiError {
  return bad(
    `The workbook part ${part} is larger than ${MAX_STRUCTURE_BYTES / 1024} KiB; a real workbook's is a few KiB.`,
  );
}

const ZIP_PROBLEMS: Record<ZipProblem['reason'], string> = {
  damaged: 'The file is not a valid .xlsx workbook (its zip structure is damaged).',
  zip64: 'The workbook is too large (zip64 archives are not accepted).',
  'too-many-entries': 'The workbook has too many parts.',
  'too-large': 'The workbook is too large once uncompressed.',
  ratio: 'The workbook compresses suspiciously well (a zip bomb?) and was refused.',
  'size-mismatch': 'The workbook’s parts do not have the sizes they declare (a zip bomb?) and it was refused.',
};

/** What the worker and the API know about a workbook once every part has been inflated and counted. */
export interface WorkbookLayout {
  /** Bytes the whole archive actually inflated to. */
  inflatedBytes: number;
  /** Sheet names in workbook order, each with its part's path in the archive. */
  sheets: { name: string; path: string }[];
  /** The sheet holding the samples (see samplesSheetName). */
  samplesSheet?: { name: string; path: string };
  /** Data rows declared by the Samples sheet's dimension (header excluded), when the writer recorded one. */
  declaredRows?: number;
}

/**
 * Inflates every part of an uploaded workbook through zlib's asynchronous streams (off the event
 * loop), counting the bytes that actually come out: a part that lies about its size, inflates
 * past `maxInflatedBytes` in all or compresses like a zip bomb is refused as soon as it shows,
 * whatever its headers declare. Nothing is parsed beyond the sheet list and the Samples sheet's
 * `<dimension>`. Each refusal is a 400 naming `file`.
 */
export async function inspectWorkbookArchive(buffer: Buffer, maxInflatedBytes: number): Promise<WorkbookLayout> {
  try {
    const archive = new ZipArchive(buffer, MAX_ENTRIES);
    const workbookEntry = archive.entry('xl/workbook.xml');
    if (!workbookEntry) throw bad('The file is a zip archive but not an .xlsx workbook.');
    let inflatedBytes = 0;
    const inflate = async (name: string, keep: number) => {
      const entry = archive.entry(name);
      if (!entry) return undefined;
      const result = await archive.inflate(entry, {
        limit: maxInflatedBytes - inflatedBytes,
        maxRatio: MAX_ENTRY_RATIO,
        keep,
      });
      inflatedBytes += result.size;
      return result.head.toString('utf8');
    };
    // A structural part is read whole (it is parsed), so its size is capped by what it really inflates to.
    const structure = async (name: string) => {
      const entry = archive.entry(name);
      if (!entry) return '';
      if (entry.declaredSize > MAX_STRUCTURE_BYTES) throw structureTooLarge(name);
      const result = await archive.inflate(entry, {
        limit: maxInflatedBytes - inflatedBytes,
        maxRatio: MAX_ENTRY_RATIO,
        keep: MAX_STRUCTURE_BYTES + 1,
      });
      inflatedBytes += result.size;
      if (result.size > MAX_STRUCTURE_BYTES) throw structureTooLarge(name);
      return result.head.toString('utf8');
    };
    const workbookXml = await structure('xl/workbook.xml');
    const relsXml = await structure('xl/_rels/workbook.xml.rels');
    const sheets = sheetsOf(workbookXml, relsXml);
    const samplesName = samplesSheetName(sheets.map((sheet) => sheet.name));
    const samplesSheet = sheets.find((sheet) => sheet.name === samplesName);
    let declaredRows: number | undefined;
    const done = new Set(['xl/workbook.xml', 'xl/_rels/workbook.xml.rels']);
    for (const entry of archive.entries) {
      if (done.has(entry.name)) continue;
      const isSamples = entry.name === samplesSheet?.path;
      const head = await inflate(entry.name, isSamples ? DIMENSION_WINDOW_BYTES : 0);
      if (isSamples && head !== undefined) declaredRows = dimensionRows(head);
    }
    return { inflatedBytes, sheets, samplesSheet, declaredRows };
  } catch (error) {
    if (error instanceof ZipProblem) throw bad(ZIP_PROBLEMS[error.reason]);
    if (error instanceof XmlCharacterProblem) throw bad(`The workbook's structure is not valid XML: ${error.message}.`);
    throw error;
  }
}

/** The archive of a workbook inspectWorkbookArchive accepted, for reading its parts. */
export function workbookArchive(buffer: Buffer): ZipArchive {
  return new ZipArchive(buffer, MAX_ENTRIES);
}

/**
 * Everything that can be said about an uploaded file before queueing it: an .xlsx by name, not
 * empty, a zip and not an encrypted or legacy OLE file, a workbook inside, not a zip bomb (by
 * bytes actually inflated), and no more than 100,000 rows by its dimension. Each refusal is a 4xx
 * naming `file`. The workbook itself is read by the worker, never on the API's request thread.
 */
export async function inspectUpload(
  buffer: Buffer,
  filename: string,
  maxInflatedBytes: number,
): Promise<WorkbookLayout> {
  if (!/\.xlsx$/i.test(filename)) {
    throw new ApiError(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 'Only .xlsx workbooks can be uploaded.', {
      file: ['must be an .xlsx file'],
    });
  }
  if (buffer.length === 0) throw bad('The uploaded file is empty.');
  if (buffer.subarray(0, 8).equals(OLE_COMPOUND)) {
    throw bad('The workbook is password-protected (or an old .xls file); save it as an unprotected .xlsx.');
  }
  if (!buffer.subarray(0, 4).equals(ZIP_LOCAL)) {
    throw bad('The file is not an .xlsx workbook (it is not a zip archive; is it a CSV renamed to .xlsx?).');
  }
  const layout = await inspectWorkbookArchive(buffer, maxInflatedBytes);
  if (!layout.samplesSheet) throw bad('The workbook has no Samples sheet.');
  if (layout.declaredRows !== undefined && layout.declaredRows > MAX_BATCH_ROWS) {
    throw bad(`The workbook has ${layout.declaredRows} rows; a batch holds at most ${MAX_BATCH_ROWS}.`);
  }
  return layout;
}

/** The sheet holding the samples: `Samples`, else the first visible sheet that is not metadata. */
export function samplesSheetName(names: string[]): string | undefined {
  return (
    names.find((name) => name.toLowerCase() === 'samples') ??
    names.find((name) => !['cover page', 'metadata', 'lookups', 'instructions'].includes(name.toLowerCase()))
  );
}

/** Sheet names (workbook.xml) joined to their parts' paths (workbook.xml.rels). */
function sheetsOf(workbookXml: string, relsXml: string): { name: string; path: string }[] {
  const targets = new Map<string, string>();
  for (const tag of xmlStartTags(relsXml)) {
    if (tag.name !== 'Relationship') continue;
    const id = tag.attributes.get('Id');
    const target = tag.attributes.get('Target');
    if (!id || !target) continue;
    targets.set(id, target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`);
  }
  const sheets: { name: string; path: string }[] = [];
  for (const tag of xmlStartTags(workbookXml)) {
    if (tag.name !== 'sheet') continue;
    const name = tag.attributes.get('name');
    const relation = [...tag.attributes.entries()].find(([key]) => key === 'id' || key.endsWith(':id'))?.[1];
    const path = relation ? targets.get(relation) : undefined;
    if (name !== undefined && path) sheets.push({ name, path });
  }
  return sheets;
}

/** `<dimension ref="A1:F50001"/>` → 50000 rows after the header. */
function dimensionRows(sheetHead: string): number | undefined {
  const ref = firstXmlTag(sheetHead, 'dimension')?.attributes.get('ref');
  const last = ref ? /(\d+)$/.exec(ref)?.[1] : undefined;
  return last ? Math.max(0, Number(last) - 1) : undefined;
}
