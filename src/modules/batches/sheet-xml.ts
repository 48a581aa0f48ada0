/**
 * What a worksheet's XML says to the reader of its rows: elements opening (with their attributes)
 * and closing, and the text between them, in document order.
 */
export interface SheetXmlHandler {
  /** An element opened; `SheetXmlScanner.attribute` answers its attributes until the next call. */
  openTag(name: string): void;
  /** Character data inside the root element (entities decoded, line ends normalised); CDATA sections are not text. */
  text(text: string): void;
  /** An element closed (a self-closing one closes right after it opened). */
  closeTag(name: string): void;
}

/** The XML is not well-formed (or declares a document type, which an OOXML part may not). */
export class SheetXmlError extends Error {}

const NAME = /^[:A-Z_a-z][-.0-9:A-Z_a-z]*$/;
/* The Name production of XML 1.0 (fifth edition), for names beyond ASCII. */
const NAME_START_CHARS =
  ':A-Z_a-z\\u{C0}-\\u{D6}\\u{D8}-\\u{F6}\\u{F8}-\\u{2FF}\\u{370}-\\u{37D}\\u{37F}-\\u{1FFF}\\u{200C}-\\u{200D}' +
  '\\u{2070}-\\u{218F}\\u{2C00}-\\u{2FEF}\\u{3001}-\\u{D7FF}\\u{F900}-\\u{FDCF}\\u{FDF0}-\\u{FFFD}\\u{10000}-\\u{EFFFF}';
const UNICODE_NAME = new RegExp(
  // eslint-disable-next-line no-misleading-character-class -- XML's NameChar includes combining marks (U+0300-U+036F)
  `^[${NAME_START_CHARS}][${NAME_START_CHARS}\\-.0-9\\u{B7}\\u{300}-\\u{36F}\\u{203F}-\\u{2040}]*$`,
  'u',
);
/** Characters XML does not allow anywhere (decoded text is well-formed UTF-16: no lone surrogates). */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const DISALLOWED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const ENTITY = /&([^;&<]*);?/g;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const VERSION = /^1\.[0-9]+$/;
const ENCODING = /^[A-Za-z][-A-Za-z0-9._]*$/;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const AMPERSAND = 0x26;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

function isName(name: string): boolean {
  return NAME.test(name) || UNICODE_NAME.test(name);
}

function fail(message: string): never {
  throw new SheetXmlError(message);
}

/** Where the document is: before its root element, inside it, after it. */
const enum Place {
  Prolog,
  Root,
  Epilog,
}

/** The longest text or markup the scanner waits for the end of, across pieces. */
export const MAX_PENDING = 1 << 20;

/** A part of the XML that ends past the text received so far: wait for more. */
const INCOMPLETE = -1;

/**
 * A non-validating XML scanner for worksheet parts, fed the part's text a piece at a time. It
 * reports what exceljs's worksheet reader listens to of saxes (opening and closing tags, text) and
 * refuses what saxes reports as an error — mismatched or unexpected tags, text outside the root,
 * malformed or duplicate attributes, `<` in an attribute value, undefined entities, `]]>` in text,
 * `--` in a comment, characters XML disallows, a misplaced or malformed XML declaration — without
 * the objects saxes builds for every tag and attribute (the larger part of reading a 50,000-row
 * sheet). Like exceljs's reader, it never checks that the document ended (a truncated part yields
 * what it holds). Three differences, on purpose, all refusals: a text or tag longer than
 * MAX_PENDING characters (it would be scanned again with every piece until it ends); a document
 * type declaration (OOXML parts may not have one; saxes would skip it); a bare `&` in text, at
 * once (saxes, never told that the part ended, reads everything after it as an entity's name: it
 * fails at the next `;`, or reports nothing more — a sheet's later rows silently lost).
 */
export class SheetXmlScanner {
  /** Text received and not yet scanned (a part of the XML cut by the end of a piece). */
  private pending = '';
  private readonly open: string[] = [];
  private place = Place.Prolog;
  /** How much of the document came before `pending`. */
  private consumed = 0;
  /** The text being scanned (what attribute offsets refer to). */
  private xml = '';
  /** The opened element's attributes, as offsets in `xml`: name start and end, value start and end. */
  private readonly attributeOffsets: number[] = [];
  /** Whether each attribute's value holds an entity or a literal tab or line end (to decode). */
  private readonly attributeSpecial: boolean[] = [];
  private attributeCount = 0;
  /** Names checked once and read again without a string of their own (a worksheet has a handful). */
  private readonly names = new Map<number, string>();

  constructor(private readonly handler: SheetXmlHandler) {}

  /** An attribute of the element just opened, decoded and normalised as XML says. */
  attribute(name: string): string | undefined {
    const { xml, attributeOffsets: offsets } = this;
    for (let i = 0; i < this.attributeCount; i++) {
      const at = i * 4;
      if (offsets[at + 1] - offsets[at] === name.length && xml.startsWith(name, offsets[at])) {
        const raw = xml.slice(offsets[at + 2], offsets[at + 3]);
        return this.attributeSpecial[i] ? attributeValue(raw) : raw;
      }
    }
    return undefined;
  }

  /** Scans the next piece of the document, reporting every part that ends in it. */
  write(piece: string): void {
    if (DISALLOWED.test(piece)) fail('disallowed character.');
    const xml = this.pending ? this.pending + piece : piece;
    this.xml = xml;
    let position = 0;
    for (;;) {
      const lt = xml.indexOf('<', position);
      if (lt < 0) {
        // Outside the root, text is refused as it comes (and blanks let go), not once markup follows it.
        if (this.place !== Place.Root) {
          this.characters(xml, position, xml.length);
          position = xml.length;
        }
        break;
      }
      if (lt > position) this.characters(xml, position, lt);
      const end = this.markup(xml, lt);
      if (end === INCOMPLETE) {
        position = lt;
        break;
      }
      position = end;
    }
    // Text is reported once the markup after it arrives (an entity may be cut by the end of a piece).
    this.pending = xml.slice(position);
    this.consumed += position;
    // What is pending is scanned again with the next piece: bounded, so that a huge text or tag
    // cannot make reading the part quadratic (a cell holds at most 32,767 characters in Excel).
    if (this.pending.length > MAX_PENDING) fail(`a text or tag longer than ${MAX_PENDING} characters.`);
  }

  private characters(xml: string, start: number, end: number): void {
    if (this.place !== Place.Root) {
      for (let i = start; i < end; i++) if (!isSpace(xml.charCodeAt(i))) fail('text data outside of root node.');
      return;
    }
    const raw = xml.slice(start, end);
    if (raw.includes(']]>')) fail('the string "]]>" is disallowed in char data.');
    // Line ends are normalised before entities are decoded: a character reference keeps its character.
    const text = normaliseLineEnds(raw);
    this.handler.text(text.includes('&') ? decodeEntities(text) : text);
  }

  /** The markup starting at `lt`; returns where it ends, or INCOMPLETE. */
  private markup(xml: string, lt: number): number {
    const next = xml.charCodeAt(lt + 1);
    if (Number.isNaN(next)) return INCOMPLETE;
    if (next === SLASH) return this.closeTag(xml, lt);
    if (next === QUESTION) return this.instruction(xml, lt);
    if (next === BANG) return this.declaration(xml, lt);
    return this.openTag(xml, lt);
  }

  /** The name from `start` to `end`, checked: the same string each time it recurs. */
  private nameAt(xml: string, start: number, end: number, what: string): string {
    // Known names by length and first and last character, confirmed in place (no string made).
    const key = (end - start) * 0x1000000 + xml.charCodeAt(start) * 0x1000 + (xml.charCodeAt(end - 1) & 0xfff);
    const known = this.names.get(key);
    if (known !== undefined && known.length === end - start && xml.startsWith(known, start)) return known;
    const name = xml.slice(start, end);
    if (!isName(name)) fail(`disallowed character in ${what} name.`);
    if (known === undefined && this.names.size < 256) this.names.set(key, name);
    return name;
  }

  private openTag(xml: string, lt: number): number {
    let i = lt + 1;
    for (let code = xml.charCodeAt(i); i < xml.length; code = xml.charCodeAt(++i)) {
      if (code === GT || code === SLASH || isSpace(code)) break;
    }
    if (i >= xml.length) return INCOMPLETE;
    const name = this.nameAt(xml, lt + 1, i, 'tag');
    this.attributeCount = 0;
    for (;;) {
      const afterSpace = skipSpaces(xml, i);
      if (afterSpace >= xml.length) return INCOMPLETE;
      const code = xml.charCodeAt(afterSpace);
      if (code === GT || code === SLASH) {
        i = afterSpace;
        break;
      }
      if (afterSpace === i) fail('no whitespace between attributes.');
      i = this.attributeAt(xml, afterSpace);
      if (i === INCOMPLETE) return INCOMPLETE;
    }
    let selfClosing = false;
    if (xml.charCodeAt(i) === SLASH) {
      if (i + 1 >= xml.length) return INCOMPLETE;
      if (xml.charCodeAt(i + 1) !== GT) fail('forward-slash in opening tag not followed by >.');
      selfClosing = true;
      i++;
    }
    if (this.place === Place.Epilog) fail('text data outside of root node.');
    this.place = Place.Root;
    this.handler.openTag(name);
    if (selfClosing) {
      this.attributeCount = 0;
      this.handler.closeTag(name);
      if (!this.open.length) this.place = Place.Epilog;
    } else {
      this.open.push(name);
    }
    return i + 1;
  }

  /** One attribute at `start`; returns where it ends, or INCOMPLETE. */
  private attributeAt(xml: string, start: number): number {
    let i = start;
    for (let code = xml.charCodeAt(i); i < xml.length; code = xml.charCodeAt(++i)) {
      if (code === EQUALS || isSpace(code)) break;
      if (code === GT || code === SLASH) fail('attribute without value.');
    }
    if (i >= xml.length) return INCOMPLETE;
    const nameEnd = i;
    this.nameAt(xml, start, nameEnd, 'attribute');
    i = skipSpaces(xml, i);
    if (i >= xml.length) return INCOMPLETE;
    if (xml.charCodeAt(i) !== EQUALS) fail('attribute without value.');
    i = skipSpaces(xml, i + 1);
    if (i >= xml.length) return INCOMPLETE;
    const quote = xml.charCodeAt(i);
    if (quote !== QUOTE && quote !== APOSTROPHE) fail('unquoted attribute value.');
    const valueStart = i + 1;
    let special = false;
    for (i = valueStart; i < xml.length; i++) {
      const code = xml.charCodeAt(i);
      if (code === quote) break;
      if (code === LT) fail('disallowed character.');
      if (code === AMPERSAND || code === 0x09 || code === 0x0a || code === 0x0d) special = true;
    }
    if (i >= xml.length) return INCOMPLETE;
    // Its entities are checked now, though decoded only if the attribute is asked for.
    if (special) attributeValue(xml.slice(valueStart, i));
    const offsets = this.attributeOffsets;
    if (this.attributeCount) {
      const name = xml.slice(start, nameEnd);
      for (let a = 0; a < this.attributeCount; a++) {
        if (offsets[a * 4 + 1] - offsets[a * 4] === name.length && xml.startsWith(name, offsets[a * 4])) {
          fail(`duplicate attribute: ${name}.`);
        }
      }
    }
    const at = this.attributeCount * 4;
    offsets[at] = start;
    offsets[at + 1] = nameEnd;
    offsets[at + 2] = valueStart;
    offsets[at + 3] = i;
    this.attributeSpecial[this.attributeCount] = special;
    this.attributeCount++;
    return i + 1;
  }

  private closeTag(xml: string, lt: number): number {
    const top = this.open[this.open.length - 1];
    this.attributeCount = 0;
    // The common case: the element last opened, closed with no blank before `>`.
    if (top !== undefined && xml.charCodeAt(lt + 2 + top.length) === GT && xml.startsWith(top, lt + 2)) {
      this.open.pop();
      this.handler.closeTag(top);
      if (!this.open.length) this.place = Place.Epilog;
      return lt + 3 + top.length;
    }
    const gt = xml.indexOf('>', lt + 2);
    if (gt < 0) return INCOMPLETE;
    let end = gt;
    while (end > lt + 2 && isSpace(xml.charCodeAt(end - 1))) end--;
    const name = xml.slice(lt + 2, end);
    if (!isName(name)) fail('disallowed character in closing tag.');
    if (this.place !== Place.Root || top !== name) fail(`unexpected close tag ${name}.`);
    this.open.pop();
    this.handler.closeTag(name);
    if (!this.open.length) this.place = Place.Epilog;
    return gt + 1;
  }

  /** A processing instruction, or the XML declaration at the very start. */
  private instruction(xml: string, lt: number): number {
    const end = xml.indexOf('?>', lt + 2);
    if (end < 0) return INCOMPLETE;
    const body = xml.slice(lt + 2, end);
    let nameEnd = 0;
    while (nameEnd < body.length && !isSpace(body.charCodeAt(nameEnd))) nameEnd++;
    const target = body.slice(0, nameEnd);
    if (!isName(target)) fail('disallowed character in processing instruction name.');
    if (target.toLowerCase() === 'xml') {
      // At the start of the document: nothing consumed before this buffer, nothing before it in it.
      if (target !== 'xml' || this.consumed + lt !== 0) {
        fail('an XML declaration must be at the start of the document.');
      }
      checkXmlDeclaration(body.slice(nameEnd));
    }
    return end + 2;
  }

  /** A comment, a CDATA section (not text to exceljs: skipped), or a refused document type. */
  private declaration(xml: string, lt: number): number {
    if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('--', lt + 4);
      if (end < 0 || end + 2 >= xml.length) return INCOMPLETE;
      if (xml.charCodeAt(end + 2) !== GT) fail('double dash in comment.');
      return end + 3;
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      if (this.place !== Place.Root) fail('CDATA section outside of root node.');
      const end = xml.indexOf(']]>', lt + 9);
      return end < 0 ? INCOMPLETE : end + 3;
    }
    if (xml.startsWith('<!DOCTYPE', lt)) fail('a worksheet part may not declare a document type.');
    const cut = xml.slice(lt);
    if (['<!--', '<![CDATA[', '<!DOCTYPE'].some((markup) => markup.startsWith(cut))) return INCOMPLETE;
    return fail('disallowed markup.');
  }
}

function skipSpaces(xml: string, from: number): number {
  let i = from;
  while (i < xml.length && isSpace(xml.charCodeAt(i))) i++;
  return i;
}

/** `\r\n` and a lone `\r` read as `\n` (XML's end-of-line handling). */
function normaliseLineEnds(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (match: string, body: string) => {
    if (!match.endsWith(';')) fail('unterminated entity.');
    return entityText(body);
  });
}

function entityText(body: string): string {
  const predefined = PREDEFINED[body];
  if (predefined !== undefined) return predefined;
  let code = Number.NaN;
  if (/^#[0-9]+$/.test(body)) code = Number(body.slice(1));
  else if (/^#x[0-9A-Fa-f]+$/.test(body)) code = parseInt(body.slice(2), 16);
  else fail(`undefined entity: ${body}.`);
  const valid =
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff);
  if (!valid) fail('malformed character entity.');
  return String.fromCodePoint(code);
}

/**
 * An attribute's value as XML reads it: each literal tab, line end or space a space (a `\r\n` one),
 * then its entities decoded (a character reference keeps the character it names).
 */
function attributeValue(raw: string): string {
  let value = raw;
  if (/[\t\n\r]/.test(value)) value = value.replace(/\r\n?|[\t\n]/g, ' ');
  return value.includes('&') ? decodeEntities(value) : value;
}

/** version (required), then encoding and standalone if present, each once and in that order. */
function checkXmlDeclaration(text: string): void {
  const attributes =
    /^\s+version\s*=\s*("[^"]*"|'[^']*')(?:\s+encoding\s*=\s*("[^"]*"|'[^']*'))?(?:\s+standalone\s*=\s*("[^"]*"|'[^']*'))?\s*$/.exec(
      text,
    );
  if (!attributes) fail('XML declaration is incomplete.');
  const [, version, encoding, standalone] = attributes.map((value) => value?.slice(1, -1));
  if (!VERSION.test(version)) fail(`version number ${version} is not supported.`);
  if (encoding !== undefined && !ENCODING.test(encoding)) fail('encoding value must match [A-Za-z][A-Za-z0-9._-]*.');
  if (standalone !== undefined && standalone !== 'yes' && standalone !== 'no') {
    fail('standalone value must be either "yes" or "no".');
  }
}
