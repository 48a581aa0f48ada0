import { Parser, ParserOptions } from 'xml2js';
import { LegacyXmlError } from './legacy-xml.error';

/** Largest `content` document accepted by default (5 MiB, counted in UTF-8 bytes). */
export const DEFAULT_MAX_LEGACY_XML_BYTES = 5 * 1024 * 1024;

/** Far deeper than any real sample document (which needs about 8 levels). */
const MAX_ELEMENT_DEPTH = 64;

/**
 * Parsing cost grows with the number of elements (about 5 µs each); a 5 MiB document of empty
 * elements would hold a million. Real documents have 10 to 80 elements per sample.
 */
export const DEFAULT_MAX_LEGACY_XML_ELEMENTS = 250_000;

/**
 * Attributes cost the parser more than elements (a 5 MB document of 590,000 attributes took 7 s).
 * Real sample documents carry a handful (namespace declarations, a few units).
 */
export const MAX_LEGACY_XML_ATTRIBUTES_PER_ELEMENT = 32;
export const DEFAULT_MAX_LEGACY_XML_ATTRIBUTES = 20_000;

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/** One element of the document, in document order, with its namespace prefix resolved away. */
export interface LegacyXmlElement {
  /** Local name: `s:sample` and `sample` are both `sample`. */
  readonly name: string;
  /** Namespace URI of the element, '' when it has none. Recorded, not checked. */
  readonly namespace: string;
  /** Attributes by qualified name; namespace declarations (`xmlns`, `xmlns:*`) are left out. */
  readonly attributes: Readonly<Record<string, string>>;
  /** The element's own text and CDATA, concatenated, untrimmed (children's text is not included). */
  readonly text: string;
  readonly children: readonly LegacyXmlElement[];
}

export interface LegacyXmlParseOptions {
  /** Documents larger than this many UTF-8 bytes are refused before parsing. */
  readonly maxBytes?: number;
  /** Documents with more elements than this are refused before parsing. */
  readonly maxElements?: number;
  /** Documents with more attributes than this (in all) are refused before parsing. */
  readonly maxAttributes?: number;
}

/**
 * xml2js in sax strict mode, keeping children in document order with text as child nodes.
 * Namespaces are resolved here rather than by sax's xmlns mode, whose cost grows with the square of
 * the number of attributes on an element (seconds for a few hundred kilobytes).
 */
const XML2JS_OPTIONS: ParserOptions = {
  strict: true,
  async: false,
  xmlns: false,
  explicitChildren: true,
  preserveChildrenOrder: true,
  charsAsChildren: true,
  includeWhiteChars: true,
  explicitCharkey: true,
  trim: false,
  normalize: false,
};

/** Checked on the raw text: a DTD is never needed and is how entity expansion attacks start. */
const DECLARATION_PATTERN = /<!\s*(?:DOCTYPE|ENTITY)/i;

/** Characters XML 1.0 forbids; sax lets some through, and they would break the response documents. */
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARACTER_PATTERN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/u;

/**
 * Parses a legacy `<samples>` document and returns its `<sample>` elements in document order.
 * Throws only LegacyXmlError, whatever the input.
 */
export function parseLegacySamplesDocument(xml: string, options: LegacyXmlParseOptions = {}): LegacyXmlElement[] {
  try {
    assertAcceptableText(xml, options.maxBytes ?? DEFAULT_MAX_LEGACY_XML_BYTES);
    assertAcceptableShape(
      xml,
      options.maxElements ?? DEFAULT_MAX_LEGACY_XML_ELEMENTS,
      options.maxAttributes ?? DEFAULT_MAX_LEGACY_XML_ATTRIBUTES,
    );
    const root = toElement(parseWithXml2js(xml), 1, new Map([['xml', XML_NAMESPACE]]));
    return samplesOf(root);
  } catch (error: unknown) {
    if (error instanceof LegacyXmlError) throw error;
    throw new LegacyXmlError(`The document could not be read as XML: ${describe(error)}.`);
  }
}

function assertAcceptableText(xml: unknown, maxBytes: number): asserts xml is string {
  if (typeof xml !== 'string') throw new LegacyXmlError('The content field must hold an XML document as text.');
  // Cheap upper bound first so a huge string is refused without a full UTF-8 count.
  if (xml.length > maxBytes || Buffer.byteLength(xml, 'utf8') > maxBytes) {
    throw new LegacyXmlError(`The XML document is larger than the limit of ${maxBytes} bytes.`, 'too-large');
  }
  if (DECLARATION_PATTERN.test(xml)) {
    throw new LegacyXmlError(
      'DOCTYPE and ENTITY declarations are not allowed in the XML document.',
      'forbidden-declaration',
    );
  }
  if (FORBIDDEN_CHARACTER_PATTERN.test(xml)) {
    throw new LegacyXmlError('The XML document contains characters that XML does not allow.');
  }
}

/**
 * Counts start tags and nesting on the raw text, so a document built to be expensive (a million
 * nested or empty elements) is refused in one linear pass instead of after seconds of parsing. Comments,
 * CDATA, processing instructions and quoted attribute values are skipped; for a malformed document
 * the count may be off, and the parser refuses that document anyway.
 */
function assertAcceptableShape(xml: string, maxElements: number, maxAttributes: number): void {
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  let at = xml.indexOf('<');
  while (at !== -1) {
    const skipTo = skippedSectionEnd(xml, at);
    if (skipTo !== undefined) {
      at = skipTo === -1 ? -1 : xml.indexOf('<', skipTo);
      continue;
    }
    const [end, tagAttributes] = tagEnd(xml, at);
    if (end === -1) return;
    if (xml[at + 1] === '/') {
      depth--;
    } else {
      elements++;
      attributes += tagAttributes;
      if (tagAttributes > MAX_LEGACY_XML_ATTRIBUTES_PER_ELEMENT) {
        throw new LegacyXmlError(
          `An element of the XML document has more than ${MAX_LEGACY_XML_ATTRIBUTES_PER_ELEMENT} attributes.`,
          'too-large',
        );
      }
      if (attributes > maxAttributes) {
        throw new LegacyXmlError(`The XML document has more than ${maxAttributes} attributes.`, 'too-large');
      }
      if (xml[end - 1] !== '/') depth++;
      if (depth > MAX_ELEMENT_DEPTH) {
        throw new LegacyXmlError(`The XML document is nested more than ${MAX_ELEMENT_DEPTH} elements deep.`);
      }
      if (elements > maxElements) {
        throw new LegacyXmlError(`The XML document has more than ${maxElements} elements.`, 'too-large');
      }
    }
    at = xml.indexOf('<', end + 1);
  }
}

/** For a comment, CDATA section or processing instruction at `at`: the index after it (-1 if unclosed). */
function skippedSectionEnd(xml: string, at: number): number | undefined {
  for (const [open, close] of [
    ['<!--', '-->'],
    ['<![CDATA[', ']]>'],
    ['<?', '?>'],
  ] as const) {
    if (xml.startsWith(open, at)) {
      const end = xml.indexOf(close, at + open.length);
      return end === -1 ? -1 : end + close.length;
    }
  }
  return undefined;
}

/**
 * Index of the `>` closing the tag that starts at `at`, skipping quoted attribute values, and the
 * number of attributes in it (each has one `=` outside quotes).
 */
function tagEnd(xml: string, at: number): [number, number] {
  let quote = '';
  let attributes = 0;
  for (let i = at + 1; i < xml.length; i++) {
    const char = xml[i];
    if (quote !== '') {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '=') {
      attributes++;
    } else if (char === '>') {
      return [i, attributes];
    }
  }
  return [-1, attributes];
}

/**
 * Runs xml2js synchronously (async: false) and collects every event: sax reports trailing content
 * after the root, or a second root element, only after xml2js has already announced the result.
 */
function parseWithXml2js(xml: string): Record<string, unknown> {
  const parser = new Parser(XML2JS_OPTIONS);
  const results: unknown[] = [];
  const errors: unknown[] = [];
  parser.on('end', (result: unknown) => results.push(result));
  parser.on('error', (error: unknown) => errors.push(error));
  try {
    parser.parseString(xml);
  } catch (error: unknown) {
    errors.push(error);
  }
  if (errors.length > 0) throw new LegacyXmlError(`The XML document is not well-formed: ${describe(errors[0])}.`);
  if (results.length > 1) throw new LegacyXmlError('The XML document must have exactly one root element.');
  const result = results[0];
  if (!isRecord(result)) throw new LegacyXmlError('The content field does not hold an XML document.');
  const rootKeys = Object.keys(result);
  const root = rootKeys.length === 1 ? result[rootKeys[0]] : undefined;
  if (!isRecord(root)) throw new LegacyXmlError('The XML document must have exactly one root element.');
  return root;
}

function samplesOf(root: LegacyXmlElement): LegacyXmlElement[] {
  if (root.name !== 'samples') {
    throw new LegacyXmlError(`The root element must be <samples>, not <${root.name}>.`, 'wrong-root');
  }
  const stray = root.children.find((child) => child.name !== 'sample');
  if (stray) {
    throw new LegacyXmlError(`<samples> may only contain <sample> elements, found <${stray.name}>.`, 'wrong-root');
  }
  if (root.children.length === 0) {
    throw new LegacyXmlError('The <samples> document contains no <sample> element.', 'no-samples');
  }
  return [...root.children];
}

/**
 * Converts one xml2js node (explicitChildren + charsAsChildren shape) into a LegacyXmlElement,
 * resolving its prefix against the namespace declarations in scope.
 */
function toElement(
  node: Record<string, unknown>,
  depth: number,
  inherited: ReadonlyMap<string, string>,
): LegacyXmlElement {
  if (depth > MAX_ELEMENT_DEPTH) {
    throw new LegacyXmlError(`The XML document is nested more than ${MAX_ELEMENT_DEPTH} elements deep.`);
  }
  const rawAttributes = attributeEntries(node.$);
  const scope = withDeclarations(inherited, rawAttributes);
  const qualifiedName = stringOf(node['#name']);
  const colon = qualifiedName.indexOf(':');
  const prefix = colon === -1 ? '' : qualifiedName.slice(0, colon);
  const namespace = scope.get(prefix);
  if (namespace === undefined && prefix !== '') {
    throw new LegacyXmlError(
      `The XML document uses the undeclared namespace prefix "${prefix}" in <${qualifiedName}>.`,
    );
  }
  const childNodes = Array.isArray(node.$$) ? node.$$.filter(isRecord) : [];
  return {
    name: qualifiedName.slice(colon + 1),
    namespace: namespace ?? '',
    // fromEntries defines own properties, so an attribute called constructor stays a plain key.
    attributes: Object.fromEntries(rawAttributes.filter(([name]) => !isNamespaceDeclaration(name))),
    text: childNodes
      .filter(isTextNode)
      .map((child) => stringOf(child._))
      .join(''),
    children: childNodes.filter((child) => !isTextNode(child)).map((child) => toElement(child, depth + 1, scope)),
  };
}

function withDeclarations(
  inherited: ReadonlyMap<string, string>,
  attributes: [string, string][],
): ReadonlyMap<string, string> {
  const declarations = attributes.filter(([name]) => isNamespaceDeclaration(name));
  if (declarations.length === 0) return inherited;
  const scope = new Map(inherited);
  for (const [name, uri] of declarations) scope.set(name === 'xmlns' ? '' : name.slice('xmlns:'.length), uri);
  return scope;
}

function isNamespaceDeclaration(attributeName: string): boolean {
  return attributeName === 'xmlns' || attributeName.startsWith('xmlns:');
}

function attributeEntries(raw: unknown): [string, string][] {
  if (!isRecord(raw)) return [];
  return Object.entries(raw).map(([name, value]): [string, string] => [name, stringOf(value)]);
}

/**
 * With charsAsChildren, a text run is `{#name: '__text__', _: text}`. An element of that name either
 * has no text (no `_`) or keeps its text in its own `$$`, so it is never mistaken for one.
 */
function isTextNode(node: Record<string, unknown>): boolean {
  return node['#name'] === '__text__' && typeof node._ === 'string' && node.$$ === undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** sax messages look like "Unexpected close tag\nLine: 0\nColumn: 10\nChar: >"; keep them short and 1-based. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : 'unknown parser failure';
  const [first, ...rest] = text.split('\n');
  const line = /^Line: (\d+)$/m.exec(rest.join('\n'));
  const column = /^Column: (\d+)$/m.exec(rest.join('\n'));
  const where = line && column ? ` (line ${Number(line[1]) + 1}, column ${column[1]})` : '';
  return `${first.trim().replace(/\.$/, '')}${where}`;
}
