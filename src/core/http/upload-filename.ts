const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The most characters a stored file name keeps (the column is varchar(255)). */
export const FILENAME_MAX_CHARS = 255;

/**
 * The name of an uploaded multipart file as the client meant it. Busboy (under multer) reads a
 * `filename="…"` parameter as latin1 unless told otherwise, so a browser's UTF-8 bytes arrive as
 * mojibake ("Proben-Ãbersicht"): such a name is decoded again as UTF-8 when its bytes are valid
 * UTF-8, and kept as latin1 when they are not (an old client that really sent latin1). A name
 * from `filename*=UTF-8''…` is already decoded (it holds characters past U+00FF) and stays as it
 * is. Control characters become "_"; the result is cut to FILENAME_MAX_CHARS characters.
 */
export function uploadFilename(received: string): string {
  let name = received;
  if (!/[\u0100-\uffff]/.test(name) && /[\x80-\xff]/.test(name)) {
    try {
      name = UTF8.decode(Buffer.from(name, 'latin1'));
    } catch {
      // not UTF-8: the client sent latin1, which is what busboy decoded
    }
  }
  // eslint-disable-next-line no-control-regex
  name = name.normalize('NFC').replace(/[\x00-\x1f\x7f]/g, '_');
  return Array.from(name).slice(0, FILENAME_MAX_CHARS).join('');
}
