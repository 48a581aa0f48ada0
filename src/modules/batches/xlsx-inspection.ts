import { HttpStatus } from '@nestjs/common';
import * as XLSX from 'xlsx';
import { ApiError } from '../../core/http/api-error';

export const MAX_BATCH_ROWS = 100_000;
/** Refuse archives that would inflate past this (zip bombs); a 100,000-row workbook is far below. */
const MAX_UNCOMPRESSED_BYTES = 400 * 1024 * 1024;
const MAX_ENTRY_RATIO = 200;
const MAX_ENTRIES = 2_000;

const ZIP_LOCAL = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** Office "encrypted package" and legacy .xls files are OLE compound documents. */
const OLE_COMPOUND = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

interface ZipEntry {
  name: string;
  compressed: number;
  uncompressed: number;
}

function bad(message: string): ApiError {
  return ApiError.badRequest(message, { file: [message] });
}

/** Reads the zip central directory (sizes as declared) without inflating anything. */
export function readZipDirectory(buffer: Buffer): ZipEntry[] {
  const searchFrom = Math.max(0, buffer.length - 65_557);
  let eocd = -1;
  for (let i = buffer.length - 22; i >= searchFrom; i--) {
    if (buffer.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad('The file is not a valid .xlsx workbook (its zip structure is damaged).');
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff)
    throw bad('The workbook is too large (zip64 archives are not accepted).');
  if (count > MAX_ENTRIES) throw bad('The workbook has too many parts.');
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (offset + 46 > buffer.length || buffer.readUInt32LE(offset) !== 0x02014b50) {
      throw bad('The file is not a valid .xlsx workbook (its zip directory is damaged).');
    }
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    entries.push({
      compressed: buffer.readUInt32LE(offset + 20),
      uncompressed: buffer.readUInt32LE(offset + 24),
      name: buffer.toString('utf8', offset + 46, offset + 46 + nameLength),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

export interface InspectedUpload {
  /** Data rows declared by the sheet's dimension (header excluded), when the writer recorded one. */
  declaredRows?: number;
}

/**
 * Everything that can be said about an uploaded file before queueing it: an .xlsx by name, not
 * empty, a zip and not an encrypted or legacy OLE file, a workbook inside, not a zip bomb, and no
 * more than 100,000 rows. Each refusal is a 4xx naming `file`.
 */
export function inspectUpload(buffer: Buffer, filename: string): InspectedUpload {
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
  const entries = readZipDirectory(buffer);
  if (!entries.some((entry) => entry.name === 'xl/workbook.xml')) {
    throw bad('The file is a zip archive but not an .xlsx workbook.');
  }
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressed;
    if (entry.uncompressed > 1024 * 1024 && entry.uncompressed > entry.compressed * MAX_ENTRY_RATIO) {
      throw bad('The workbook compresses suspiciously well (a zip bomb?) and was refused.');
    }
  }
  if (total > MAX_UNCOMPRESSED_BYTES) throw bad('The workbook is too large once uncompressed.');

  let declaredRows: number | undefined;
  try {
    const workbook = XLSX.read(buffer, { type: 'buffer', sheetRows: 2, bookVBA: false, cellFormula: false });
    const name = samplesSheetName(workbook.SheetNames);
    const sheet = name ? workbook.Sheets[name] : undefined;
    const range = (sheet?.['!fullref'] as string | undefined) ?? sheet?.['!ref'];
    if (range) declaredRows = XLSX.utils.decode_range(range).e.r; // rows after the header
  } catch (error) {
    const message = (error as Error).message;
    if (/password|encrypt/i.test(message)) throw bad('The workbook is password-protected; save it unprotected.');
    throw bad('The workbook could not be read; it may be damaged.');
  }
  if (declaredRows !== undefined && declaredRows > MAX_BATCH_ROWS) {
    throw bad(`The workbook has ${declaredRows} rows; a batch holds at most ${MAX_BATCH_ROWS}.`);
  }
  return { declaredRows };
}

/** The sheet holding the samples: `Samples`, else the first visible sheet that is not metadata. */
export function samplesSheetName(names: string[]): string | undefined {
  return (
    names.find((name) => name.toLowerCase() === 'samples') ??
    names.find((name) => !['cover page', 'metadata', 'lookups', 'instructions'].includes(name.toLowerCase()))
  );
}
