/**
 * The XML documents old clients parse. Shapes follow the documents the old service returned: a
 * `<results>` root, no XML declaration, two-space indentation. Every value is escaped here, so
 * callers pass plain text.
 */

/** What happened to one `<sample>` of the request. */
export type LegacySampleOutcome =
  | {
      readonly status: 'saved' | 'updated';
      readonly name: string;
      readonly igsn: string;
      /** Shown as the sample's own `<warning>`, e.g. why it was saved as a draft. */
      readonly warning?: string;
    }
  | { readonly status: 'failed'; readonly name: string; readonly error: string };

export interface LegacyResultsOptions {
  /** Adds the `<warning>` deprecation notice; by default present when at least one sample succeeded. */
  readonly deprecationWarning?: boolean;
}

export const LEGACY_XML_DEPRECATION_WARNING =
  'This XML interface is deprecated and kept only for migration. ' +
  'New integrations should send JSON to /api/samples/ with a JWT bearer token.';

/** The headers CONTRACT §7 puts on a successful legacy response, next to the `<warning>`. */
export const LEGACY_XML_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: 'true',
  Link: '</api/samples/>; rel="successor-version"',
};

export const LEGACY_XML_CONTENT_TYPE = 'application/xml; charset=utf-8';

const DEFAULT_AUTH_ERROR = 'Authentication failed: send a valid JWT access token as "Authorization: Bearer <token>".';

/** A DOI-form IGSN (`10.5072/IEABC0001`, optionally as a doi.org URL or `doi:`) loses its prefix. */
const DOI_PREFIX_PATTERN = /^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:)?10\.\d{4,9}\//i;

/** Old clients expect the 9-character suffix, never the DOI form. */
export function bareIgsn(igsn: string): string {
  return igsn.trim().replace(DOI_PREFIX_PATTERN, '');
}

/** The `<results>` document for a request whose samples were each saved, updated or refused. */
export function legacyResultsDocument(
  outcomes: readonly LegacySampleOutcome[],
  options: LegacyResultsOptions = {},
): string {
  const warn = options.deprecationWarning ?? outcomes.some((outcome) => outcome.status !== 'failed');
  const children = outcomes.map(sampleElement);
  // Last, so clients that read the first child of <results> still find a <sample> there.
  if (warn) children.push(element('warning', {}, LEGACY_XML_DEPRECATION_WARNING));
  return resultsDocument(children);
}

/** The 400 document for a request whose `content` is missing or cannot be read as a samples document. */
export function legacyInvalidXmlDocument(message: string): string {
  return resultsDocument([element('valid', { code: 'InvalidXML' }, 'no'), element('error', {}, message)]);
}

/** The 401 document for a request without a usable bearer token. */
export function legacyInvalidAuthDocument(message: string = DEFAULT_AUTH_ERROR): string {
  return resultsDocument([element('valid', { code: 'InvalidAuth' }, 'no'), element('error', {}, message)]);
}

function sampleElement(outcome: LegacySampleOutcome): XmlNode {
  if (outcome.status === 'failed') {
    return element('sample', { name: outcome.name }, [
      element('valid', { code: 'InvalidSample' }, 'no'),
      element('status', {}, 'Not Saved'),
      element('error', {}, outcome.error),
    ]);
  }
  const igsn = bareIgsn(outcome.igsn);
  const verb = outcome.status === 'saved' ? 'saved' : 'updated';
  const children = [
    element('status', {}, `Sample [${outcome.name}] was ${verb} successfully with IGSN [${igsn}].`),
    element('name', {}, outcome.name),
    element('igsn', {}, igsn),
  ];
  // After the elements old clients read, so a client that ignores it sees the usual document.
  if (outcome.warning !== undefined) children.push(element('warning', {}, outcome.warning));
  return element('sample', {}, children);
}

interface XmlNode {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly content: string | readonly XmlNode[];
}

function element(name: string, attributes: Record<string, string>, content: string | XmlNode[]): XmlNode {
  return { name, attributes, content };
}

function resultsDocument(children: XmlNode[]): string {
  return `${render(element('results', {}, children), 0)}\n`;
}

function render(node: XmlNode, depth: number): string {
  const indent = '  '.repeat(depth);
  const attributes = Object.entries(node.attributes)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
  const open = `${indent}<${node.name}${attributes}>`;
  if (typeof node.content === 'string') return `${open}${escapeText(node.content)}</${node.name}>`;
  const children = node.content.map((child) => render(child, depth + 1));
  return [open, ...children, `${indent}</${node.name}>`].join('\n');
}

/** A carriage return is encoded because parsers turn a literal one into a line feed. */
function escapeText(text: string): string {
  return xmlSafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Tabs and line breaks are encoded too: a parser would otherwise normalise them to spaces in an attribute. */
function escapeAttribute(text: string): string {
  return escapeText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;');
}

/**
 * Characters XML 1.0 cannot carry at all (control characters, lone surrogates) become U+FFFD, so an
 * error message quoting odd input can never make the response document unreadable.
 */
function xmlSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu, '\uFFFD');
}

/**
 * An error body (`{message, errors}`) as the one line of text an `<error>` element holds, e.g.
 * `Validation failed. latitude: is required to publish a sample.` Field problems the message
 * already quotes are not repeated, and a `Validation failed: a, b.` list of field names is
 * shortened to `Validation failed.` because the details that follow name the fields.
 */
export function legacyErrorText(message: string, errors: Readonly<Record<string, readonly string[]>> = {}): string {
  const details = Object.entries(errors).flatMap(([field, problems]) =>
    problems.filter((problem) => !message.includes(problem)).map((problem) => fieldProblem(field, problem)),
  );
  if (details.length === 0) return message;
  const fieldList = `Validation failed: ${Object.keys(errors).join(', ')}.`;
  const lead = message === fieldList ? 'Validation failed.' : withStop(message);
  return `${lead} ${details.join('; ')}.`;
}

/** `latitude` + `latitude must not be greater than 90` → `latitude: must not be greater than 90`. */
function fieldProblem(field: string, problem: string): string {
  const property = field.slice(field.lastIndexOf('.') + 1);
  const text = problem.replace(/[.\s]+$/, '');
  return `${field}: ${text.startsWith(`${property} `) ? text.slice(property.length + 1) : text}`;
}

function withStop(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
