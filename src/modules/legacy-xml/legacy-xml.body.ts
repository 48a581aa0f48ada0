import { TextDecoder } from 'node:util';
import { LegacyXmlError } from './legacy-xml.error';

/**
 * Where the samples document is in a legacy request. Old clients send the `content` field in every
 * way CONTRACT §7 lists, including bodies whose media type does not match their format (the old
 * documentation's curl example posts `content=<?xml …` as application/xml, not URL-encoded).
 *
 * Rules for a text body (URL-encoded form, XML media types, text/plain or no media type):
 * 1. A body that starts with `<` (after a BOM or whitespace) is the XML document itself.
 * 2. A body with a `content=` parameter whose value starts with a literal `<` was not URL-encoded
 *    (every encoder turns `<` into `%3C`): the value is the XML verbatim, `&`, `=`, `+` and `%`
 *    included, up to the end of the body. Parameters before it (`username=…&`) are skipped. After
 *    the last `>` of the body, only `&name=value` parameters without `<` or `>` may follow; they are
 *    cut off. Anything else there stays and the parser reports it.
 * 3. Otherwise the body is a URL-encoded form and its single `content` parameter is decoded.
 * A JSON body (application/json or `+json`) is `{"content": "<samples>…"}`.
 * Multipart bodies are parsed by the HTTP layer; it passes the field to legacyXmlFromField.
 */
export function legacyXmlFromRequestBody(contentType: string | undefined, body: Buffer | string | undefined): string {
  const { mediaType, charset } = parseContentType(contentType);
  const text = typeof body === 'string' ? body : decode(body ?? Buffer.alloc(0), charset);
  if (isJsonMediaType(mediaType)) return contentFromJson(text);
  if (mediaType === 'multipart/form-data') {
    throw new LegacyXmlError(
      'Multipart bodies must be parsed before the content field is read.',
      'unsupported-media-type',
    );
  }
  if (!isTextMediaType(mediaType)) {
    throw new LegacyXmlError(
      `Unsupported media type "${mediaType}"; send the content field as a form, as JSON or as XML.`,
      'unsupported-media-type',
    );
  }
  return contentFromText(text);
}

/** The `content` field as a body parser or multer delivered it: a string, or a Buffer for a file part. */
export function legacyXmlFromField(value: unknown): string {
  if (Array.isArray(value)) throw new LegacyXmlError('The content field was sent more than once.', 'malformed');
  if (Buffer.isBuffer(value)) return nonEmpty(decode(value, 'utf-8'));
  if (typeof value !== 'string') throw missingContent();
  return nonEmpty(value);
}

const TEXT_MEDIA_TYPES: ReadonlySet<string> = new Set([
  '',
  'application/x-www-form-urlencoded',
  'application/xml',
  'text/xml',
  'text/plain',
]);

/** `username=a&content=` — the first `content` parameter, at the start or after `&`. */
const CONTENT_PARAMETER = /(?:^|&)content=/;

/** What may follow the XML in a raw body: `&name=value` pairs that cannot be part of markup. */
const TRAILING_PARAMETERS = /^(?:&[^&=<>]+=[^&<>]*)+$/;

function contentFromText(body: string): string {
  const text = body.replace(/^\uFEFF/, '').trimStart();
  if (text === '') throw missingContent();
  if (text.startsWith('<')) return text;
  const raw = rawContentParameter(text);
  if (raw !== undefined) return nonEmpty(raw);
  return contentFromUrlEncoded(text);
}

/** Rule 2: the `content=<…` value of a body that was not URL-encoded, or undefined if there is none. */
function rawContentParameter(text: string): string | undefined {
  const match = CONTENT_PARAMETER.exec(text);
  if (match === null || text.slice(0, match.index).includes('<')) return undefined;
  const value = text.slice(match.index + match[0].length);
  if (!value.trimStart().startsWith('<')) return undefined;
  const end = value.lastIndexOf('>') + 1;
  const tail = value.slice(end).trim();
  return tail === '' || TRAILING_PARAMETERS.test(tail) ? value.slice(0, end) : value;
}

function contentFromUrlEncoded(text: string): string {
  // URLSearchParams never throws: a malformed %-sequence is kept as it is.
  const values = new URLSearchParams(text).getAll('content');
  if (values.length > 1) throw new LegacyXmlError('The content field was sent more than once.', 'malformed');
  if (values.length === 0) throw missingContent();
  return nonEmpty(values[0]);
}

function contentFromJson(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LegacyXmlError('The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('content' in body)) {
    throw missingContent();
  }
  if (typeof body.content !== 'string') {
    throw new LegacyXmlError('The content field must be a string holding the XML document.', 'missing-content');
  }
  return nonEmpty(body.content);
}

function parseContentType(header: string | undefined): { mediaType: string; charset: string } {
  const [type = '', ...parameters] = (header ?? '').split(';');
  const charsetParameter = parameters.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('charset='));
  const charset = charsetParameter?.slice('charset='.length).replace(/^"|"$/g, '') || 'utf-8';
  return { mediaType: type.trim().toLowerCase(), charset };
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isTextMediaType(mediaType: string): boolean {
  return TEXT_MEDIA_TYPES.has(mediaType) || mediaType.endsWith('+xml');
}

function decode(body: Buffer, charset: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    throw new LegacyXmlError(`Unsupported charset "${charset}".`, 'unsupported-media-type');
  }
  return decoder.decode(body);
}

function nonEmpty(xml: string): string {
  if (xml.trim() === '') throw missingContent();
  return xml;
}

function missingContent(): LegacyXmlError {
  return new LegacyXmlError('The request has no content field holding a samples XML document.', 'missing-content');
}
