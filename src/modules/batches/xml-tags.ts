/**
 * The start tags of a piece of XML, found in one left-to-right pass over its characters. The API
 * reads an uploaded workbook's structure (sheet list, relationships, dimension) with this instead
 * of regular expressions: a regex such as `<sheet\b([^>]*)>` rescans the rest of the text at every
 * `<sheet` that has no `>`, so 30,000 repeats in 180 KB cost seconds (quadratic). Here every
 * character is looked at a bounded number of times, whatever the text holds.
 */

/** A character reference outside Unicode's range (or a surrogate, or NUL): the part is not XML. */
export class XmlCharacterProblem extends Error {}

export interface XmlTag {
  /** Local name (namespace prefix removed). */
  name: string;
  attributes: Map<string, string>;
}

const LT = 0x3c;
const GT = 0x3e;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;

/** Each start or empty-element tag (not end tags, comments or declarations), in document order. */
export function* xmlStartTags(xml: string): Generator<XmlTag> {
  let tagStart = -1;
  let quote = 0;
  for (let i = 0; i < xml.length; i++) {
    const code = xml.charCodeAt(i);
    if (quote !== 0) {
      if (code === quote) quote = 0;
    } else if (code === LT) {
      // A `<` inside an unfinished tag abandons it: that text was not a tag.
      tagStart = i;
    } else if (tagStart >= 0 && (code === QUOTE || code === APOSTROPHE)) {
      quote = code;
    } else if (code === GT && tagStart >= 0) {
      const tag = parseTag(xml.slice(tagStart + 1, i));
      tagStart = -1;
      if (tag) yield tag;
    }
  }
}

/** The first start tag with local name `name`, or undefined. */
export function firstXmlTag(xml: string, name: string): XmlTag | undefined {
  for (const tag of xmlStartTags(xml)) if (tag.name === name) return tag;
  return undefined;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** `name a="1" b='2' /` → {name, attributes}; undefined for end tags, comments and declarations. */
function parseTag(text: string): XmlTag | undefined {
  const first = text.charCodeAt(0);
  if (Number.isNaN(first) || text[0] === '/' || text[0] === '!' || text[0] === '?') return undefined;
  let i = 0;
  while (i < text.length && !isSpace(text.charCodeAt(i)) && text[i] !== '/') i++;
  const qualified = text.slice(0, i);
  const name = qualified.slice(qualified.indexOf(':') + 1);
  const attributes = new Map<string, string>();
  while (i < text.length) {
    while (i < text.length && (isSpace(text.charCodeAt(i)) || text[i] === '/')) i++;
    const keyStart = i;
    while (i < text.length && text[i] !== '=' && !isSpace(text.charCodeAt(i))) i++;
    const key = text.slice(keyStart, i);
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (text[i] !== '=') continue;
    i++;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    const quote = text[i];
    if (quote !== '"' && quote !== "'") break;
    const end = text.indexOf(quote, i + 1);
    if (end < 0) break;
    if (key) attributes.set(key, unescapeXml(text.slice(i + 1, end)));
    i = end + 1;
  }
  return { name, attributes };
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** A character XML allows: not NUL, not a lone surrogate, within Unicode's range. */
function isXmlCharacter(code: number): boolean {
  return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
}

/** Attribute text with its entity and character references replaced (each `&` starts one short match). */
export function unescapeXml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(amp|lt|gt|quot|apos|#x[0-9a-f]{1,8}|#\d{1,10});/gi, (_, name: string) => {
    if (name[0] !== '#') return XML_ENTITIES[name.toLowerCase()];
    const code = name[1].toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    if (!isXmlCharacter(code)) throw new XmlCharacterProblem(`&${name}; is not a character XML allows`);
    return String.fromCodePoint(code);
  });
}
