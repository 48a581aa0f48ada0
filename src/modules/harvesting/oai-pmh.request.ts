/**
 * OAI-PMH 2.0 requests: which arguments each verb takes, how they are read and what error code a
 * bad one gets (protocol §3.6). Pure functions: the service runs what these return.
 */

export const OAI_VERBS = [
  'Identify',
  'ListMetadataFormats',
  'ListSets',
  'ListIdentifiers',
  'ListRecords',
  'GetRecord',
] as const;
export type OaiVerb = (typeof OAI_VERBS)[number];

export const OAI_ERROR_CODES = [
  'badArgument',
  'badResumptionToken',
  'badVerb',
  'cannotDisseminateFormat',
  'idDoesNotExist',
  'noRecordsMatch',
  'noMetadataFormats',
  'noSetHierarchy',
] as const;
export type OaiErrorCode = (typeof OAI_ERROR_CODES)[number];

/** An OAI-PMH error: answered 200 with `<error code="…">` (the protocol's errors are not HTTP errors). */
export class OaiError extends Error {
  constructor(
    readonly code: OaiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The metadata formats this repository disseminates, by metadataPrefix. */
export const OAI_FORMATS = {
  oai_dc: {
    schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
    namespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
  },
  oai_datacite: {
    schema: 'https://schema.datacite.org/meta/kernel-4.6/metadata.xsd',
    namespace: 'http://datacite.org/schema/kernel-4',
  },
} as const;
export type OaiFormat = keyof typeof OAI_FORMATS;

type Requirement = 'required' | 'optional' | 'exclusive';

/** The arguments each verb accepts besides `verb` (protocol §4). */
const ARGUMENTS: Record<OaiVerb, Record<string, Requirement>> = {
  Identify: {},
  ListMetadataFormats: { identifier: 'optional' },
  ListSets: { resumptionToken: 'exclusive' },
  ListIdentifiers: {
    metadataPrefix: 'required',
    from: 'optional',
    until: 'optional',
    set: 'optional',
    resumptionToken: 'exclusive',
  },
  ListRecords: {
    metadataPrefix: 'required',
    from: 'optional',
    until: 'optional',
    set: 'optional',
    resumptionToken: 'exclusive',
  },
  GetRecord: { identifier: 'required', metadataPrefix: 'required' },
};

/** A request whose verb and arguments are well-formed: each argument once, as text. */
export interface OaiRequest {
  verb: OaiVerb;
  args: Record<string, string>;
}

/**
 * Reads the verb and the arguments (query string of a GET, form body of a POST). A missing,
 * repeated or unknown verb is `badVerb`; an argument repeated, not a string, unknown to the verb,
 * missing when required, or given beside an exclusive one (resumptionToken) is `badArgument`.
 */
export function readOaiRequest(input: Record<string, unknown>): OaiRequest {
  const verb = input.verb;
  if (verb === undefined) throw new OaiError('badVerb', 'The request has no verb.');
  if (typeof verb !== 'string') throw new OaiError('badVerb', 'The verb argument is repeated.');
  if (!(OAI_VERBS as readonly string[]).includes(verb)) {
    throw new OaiError('badVerb', `"${verb}" is not an OAI-PMH verb; use one of ${OAI_VERBS.join(', ')}.`);
  }
  const allowed = ARGUMENTS[verb as OaiVerb];
  const args: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) {
    if (name === 'verb') continue;
    if (!(name in allowed)) throw new OaiError('badArgument', `${verb} does not take the argument "${name}".`);
    if (typeof value !== 'string') throw new OaiError('badArgument', `The argument "${name}" is repeated.`);
    args[name] = value;
  }
  const exclusive = Object.keys(args).find((name) => allowed[name] === 'exclusive');
  if (exclusive) {
    if (Object.keys(args).length > 1) {
      throw new OaiError('badArgument', `${exclusive} is an exclusive argument: send it alone with the verb.`);
    }
    return { verb: verb as OaiVerb, args };
  }
  for (const [name, requirement] of Object.entries(allowed)) {
    if (requirement === 'required' && (args[name] === undefined || args[name] === '')) {
      throw new OaiError('badArgument', `${verb} requires the argument "${name}".`);
    }
  }
  return { verb: verb as OaiVerb, args };
}

export function readFormat(prefix: string): OaiFormat {
  if (!Object.prototype.hasOwnProperty.call(OAI_FORMATS, prefix)) {
    throw new OaiError(
      'cannotDisseminateFormat',
      `The metadata format "${prefix}" is not supported; use one of ${Object.keys(OAI_FORMATS).join(', ')}.`,
    );
  }
  return prefix as OaiFormat;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** A datestamp argument: its instant, and the instant just past the granularity it names. */
interface Datestamp {
  granularity: 'day' | 'second';
  start: Date;
  end: Date;
}

function readDatestamp(name: string, value: string): Datestamp {
  const day = DAY.exec(value);
  const second = SECOND.exec(value);
  const parts = (day ?? second)?.slice(1).map(Number);
  if (!parts) {
    throw new OaiError('badArgument', `${name} must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (UTC), got "${value}".`);
  }
  const [year, month, date, hours = 0, minutes = 0, seconds = 0] = parts;
  const start = new Date(Date.UTC(year, month - 1, date, hours, minutes, seconds));
  // Date.UTC rolls 2024-02-30 over into March and 25:00 into the next day: such values are refused.
  const roundTrip = start.toISOString().slice(0, day ? 10 : 19) + (day ? '' : 'Z');
  if (roundTrip !== value || year < 1) throw new OaiError('badArgument', `${name} is not a real date: "${value}".`);
  const end = new Date(start.getTime() + (day ? 86_400_000 : 1000));
  return { granularity: day ? 'day' : 'second', start, end };
}

/** The datestamp range of a list request: `from` included, `before` excluded (OAI's `until` is inclusive). */
export interface DatestampRange {
  from?: Date;
  before?: Date;
}

/** from/until: either granularity, the same for both, from not after until (else badArgument). */
export function readDatestampRange(from: string | undefined, until: string | undefined): DatestampRange {
  const start = from ? readDatestamp('from', from) : undefined;
  const end = until ? readDatestamp('until', until) : undefined;
  if (start && end) {
    if (start.granularity !== end.granularity) {
      throw new OaiError('badArgument', 'from and until must have the same granularity.');
    }
    if (start.start > end.start) throw new OaiError('badArgument', 'from must not be after until.');
  }
  return { from: start?.start, before: end?.end };
}

/** A datestamp as OAI-PMH writes it: seconds granularity, UTC. */
export function oaiDatestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** What a resumption token carries: the list request, and where the next page starts. */
export interface OaiListState {
  metadataPrefix: OaiFormat;
  set?: string;
  from?: string;
  until?: string;
  /** The last record's datestamp (as PostgreSQL prints it) and id. */
  after: { datestampKey: string; id: string };
  /** Records delivered before the next page (the resumptionToken's `cursor`). */
  cursor: number;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,2000}$/;

export function encodeResumptionToken(state: OaiListState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
}

/**
 * The list state in a token this repository issued, or badResumptionToken. Tokens are keyset
 * positions, not cursors into a result held in memory: they never expire and stay correct while
 * samples are added (new records sort after every issued position).
 */
export function decodeResumptionToken(token: string): OaiListState {
  const invalid = () => new OaiError('badResumptionToken', 'The resumption token is not valid.');
  if (!TOKEN_PATTERN.test(token)) throw invalid();
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof state !== 'object' || state === null) throw invalid();
  const { metadataPrefix, set, from, until, after, cursor } = state as Record<string, unknown>;
  const optionalText = (value: unknown) => value === undefined || typeof value === 'string';
  if (typeof metadataPrefix !== 'string' || !Object.prototype.hasOwnProperty.call(OAI_FORMATS, metadataPrefix)) {
    throw invalid();
  }
  if (!optionalText(set) || !optionalText(from) || !optionalText(until)) throw invalid();
  if (typeof cursor !== 'number' || !Number.isSafeInteger(cursor) || cursor < 0) throw invalid();
  const position = after as { datestampKey?: unknown; id?: unknown } | null;
  if (
    typeof position !== 'object' ||
    position === null ||
    typeof position.datestampKey !== 'string' ||
    !/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d)?$/.test(position.datestampKey) ||
    typeof position.id !== 'string' ||
    !/^\d{1,18}$/.test(position.id)
  ) {
    throw invalid();
  }
  try {
    readDatestampRange(from, until);
  } catch {
    throw invalid();
  }
  return {
    metadataPrefix: metadataPrefix as OaiFormat,
    set: set,
    from: from,
    until: until,
    after: { datestampKey: position.datestampKey, id: position.id },
    cursor,
  };
}
