import busboy from 'busboy';
import { LegacyXmlError } from './legacy-xml.error';

/** The parts of a multipart body: text fields and file parts, each by field name, in order. */
export interface MultipartParts {
  fields: Map<string, string[]>;
  files: Map<string, Buffer[]>;
}

/** Far more parts than an old client sends (a `content` field, perhaps a username and a password). */
const MAX_PARTS = 50;

/**
 * Parses a multipart/form-data body that the HTTP layer has already read into memory within
 * XML_BODY_LIMIT (body-parsers.ts), so the whole body, not each part, is what the limit bounds.
 */
export function parseMultipart(contentType: string, body: Buffer): Promise<MultipartParts> {
  return new Promise((resolve, reject) => {
    const parts: MultipartParts = { fields: new Map(), files: new Map() };
    const add = <T>(map: Map<string, T[]>, name: string, value: T) => map.set(name, [...(map.get(name) ?? []), value]);
    const fail = (message: string) => reject(new LegacyXmlError(`The multipart body could not be read: ${message}.`));
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fieldSize: body.length, fileSize: body.length, parts: MAX_PARTS },
      });
    } catch (error) {
      fail((error as Error).message);
      return;
    }
    parser.on('field', (name, value) => add(parts.fields, name, value));
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => add(parts.files, name, Buffer.concat(chunks)));
    });
    parser.on('partsLimit', () => fail(`more than ${MAX_PARTS} parts`));
    parser.on('error', (error: Error) => fail(error.message));
    parser.on('close', () => resolve(parts));
    parser.end(body);
  });
}
