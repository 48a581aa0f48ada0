import { SaxesParser } from 'saxes';
import { MAX_PENDING, SheetXmlError, SheetXmlScanner } from './sheet-xml';

/** What a reader of the rows sees: tags with their attributes, and the text between them joined. */
type Event = ['open', string, Record<string, string>] | ['text', string] | ['close', string];

/** Adjacent text joined, and blanks outside the root left out (saxes reports some, and nothing reads them). */
function joined(events: Event[]): Event[] {
  const out: Event[] = [];
  let depth = 0;
  for (const event of events) {
    if (event[0] === 'open') depth++;
    if (event[0] === 'close') depth--;
    if (event[0] === 'text' && depth === 0 && !event[1].trim()) continue;
    const last = out[out.length - 1];
    if (event[0] === 'text' && last?.[0] === 'text') last[1] += event[1];
    else out.push(event);
  }
  return out.filter((event) => event[0] !== 'text' || event[1] !== '');
}

/** saxes as exceljs's worksheet reader drives it: default options, an error after any piece fails the read. */
function bySaxes(pieces: string[]): Event[] {
  const parser = new SaxesParser();
  const events: Event[] = [];
  let error: Error | undefined;
  parser.on('error', (caught) => (error ??= caught));
  parser.on('opentag', (tag) => events.push(['open', tag.name, { ...(tag.attributes as Record<string, string>) }]));
  parser.on('text', (text) => events.push(['text', text]));
  parser.on('closetag', (tag) => events.push(['close', tag.name]));
  for (const piece of pieces) {
    parser.write(piece);
    if (error) throw error;
  }
  return joined(events);
}

/** The scanner, asked for every attribute saxes reports and for one that is not there. */
function byScanner(pieces: string[], expected: Event[]): Event[] {
  const opened = expected.filter((event) => event[0] === 'open');
  const events: Event[] = [];
  const scanner: SheetXmlScanner = new SheetXmlScanner({
    openTag: (name) => {
      const names = Object.keys(opened[events.filter((event) => event[0] === 'open').length]?.[2] ?? {});
      const attributes: Record<string, string> = {};
      for (const attribute of [...names, 'absent']) {
        const value = scanner.attribute(attribute);
        if (value !== undefined) attributes[attribute] = value;
      }
      events.push(['open', name, attributes]);
    },
    text: (text) => events.push(['text', text]),
    closeTag: (name) => events.push(['close', name]),
  });
  for (const piece of pieces) scanner.write(piece);
  return joined(events);
}

/** The document whole, then cut in two at every position, then in three at a few. */
function cuts(xml: string): string[][] {
  const ways = [[xml]];
  for (let at = 1; at < xml.length; at++) ways.push([xml.slice(0, at), xml.slice(at)]);
  for (let at = 1; at + 7 < xml.length; at += 7)
    ways.push([xml.slice(0, at), xml.slice(at, at + 5), xml.slice(at + 5)]);
  return ways;
}

const WELL_FORMED: [string, string][] = [
  [
    'a worksheet as writers put it',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="urn:x"><sheetData>' +
      '<row r="1" spans="1:3"><c r="A1" t="s"><v>0</v></c><c r="B1" s="2"><v>45000.5</v></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t xml:space="preserve"> x </t></is></c><c r="C2"><f>A1+1</f><v>2</v></c></row>' +
      '</sheetData></worksheet>',
  ],
  ['blanks around names, quotes of both kinds', "<a  b = '1'\n\tc=\"2\" ><d e='x\"y' /></a >"],
  ['entities in text', '<a>&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#65;&#x42;&#x1F600;&#10;</a>'],
  ['entities and blanks in attributes', '<a b="&lt;&amp;&gt;" c="x\ty\nz\r\nw\rv" d="&#9;&#10;&#13;"/>'],
  ['line ends in text', '<a>one\r\ntwo\rthree\nfour&#13;five</a>'],
  [
    'comments, instructions and CDATA',
    '<!-- before --><?pi data?><a>x<!-- in -->y<?pi?>z<![CDATA[<not text>]]>w</a><!-- after -->\n',
  ],
  ['> in text and attributes', '<a b="1>2">3 > 2</a>'],
  ['names beyond ASCII and with prefixes', '<x:ré\u00B7s y:é="1"><x:row r="1"/></x:ré\u00B7s>'],
  ['blanks around the root', ' \n\t<a/>\n '],
  ['empty text and elements', '<a><b></b><c/><d>\n</d></a>'],
];

const MALFORMED: [string, string][] = [
  ['a close tag that does not match', '<a><b></a></b>'],
  ['a close tag with nothing open', '<a></a></b>'],
  ['text outside the root', 'x<a/>'],
  ['text after the root', '<a/>x'],
  ['two roots', '<a/><b/>'],
  ['an attribute without a value', '<a b>x</a>'],
  ['an unquoted attribute', '<a b=1>x</a>'],
  ['a duplicate attribute', '<a b="1" b="2">x</a>'],
  ['< in an attribute', '<a b="<">x</a>'],
  ['attributes without a blank between', '<a b="1"c="2">x</a>'],
  ['an undefined entity', '<a>&nbsp;</a>'],
  ['an entity in an attribute that is not one', '<a b="&x;"/>'],
  [']]> in text', '<a>x]]>y</a>'],
  ['a double dash in a comment', '<a><!-- a -- b --></a>'],
  ['a disallowed character', '<a>\u0001</a>'],
  ['a character reference to a disallowed character', '<a>&#0;</a>'],
  ['an XML declaration not at the start', ' <?xml version="1.0"?><a/>'],
  ['an XML declaration without a version', '<?xml encoding="UTF-8"?><a/>'],
  ['an unsupported version', '<?xml version="2.0"?><a/>'],
  ['an xml instruction in upper case', '<a><?XML x?></a>'],
  ['a blank after <', '< a/>'],
  ['a slash not followed by >', '<a/ >'],
  ['a name starting with a digit', '<1a/>'],
  ['a CDATA section outside the root', '<![CDATA[x]]><a/>'],
];

describe('SheetXmlScanner: what saxes reports to exceljs, without its objects', () => {
  it.each(WELL_FORMED)('reports %s as saxes does, however the text is cut', (_case, xml) => {
    const expected = bySaxes([xml]);
    expect(expected.length).toBeGreaterThan(1);
    for (const pieces of cuts(xml)) {
      expect(bySaxes(pieces)).toStrictEqual(expected);
      expect(byScanner(pieces, expected)).toStrictEqual(expected);
    }
  });

  it.each(MALFORMED)('refuses %s, as saxes does, however the text is cut', (_case, xml) => {
    expect(() => bySaxes([xml])).toThrow();
    for (const pieces of cuts(xml)) expect(() => byScanner(pieces, [])).toThrow(SheetXmlError);
  });

  it('refuses a document type declaration, which OOXML parts may not have (saxes would skip it)', () => {
    const xml = '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>';
    for (const pieces of cuts(xml)) expect(() => byScanner(pieces, [])).toThrow(/document type/);
  });

  it('refuses a bare ampersand at once, where saxes reads the rest of the part as an entity name', () => {
    const xml = '<r><a>fish & chips</a><b>x</b></r>';
    expect(bySaxes([xml])).toStrictEqual([
      ['open', 'r', {}],
      ['open', 'a', {}],
    ]);
    for (const pieces of cuts(xml)) expect(() => byScanner(pieces, [])).toThrow(/entity/);
  });

  it('reads a long text across many pieces, and refuses one longer than MAX_PENDING (scanned again with every piece)', () => {
    const read = (text: string) => {
      let seen = '';
      const scanner = new SheetXmlScanner({
        openTag: () => undefined,
        text: (t) => (seen += t),
        closeTag: () => undefined,
      });
      const xml = `<a><v>${text}</v></a>`;
      for (let at = 0; at < xml.length; at += 16384) scanner.write(xml.slice(at, at + 16384));
      return seen;
    };
    const long = 'x'.repeat(MAX_PENDING - 100);
    expect(read(long)).toBe(long);
    expect(() => read('x'.repeat(MAX_PENDING + 32768))).toThrow(/longer than/);
  });

  it('reports nothing of a part cut short, as exceljs never tells saxes the part ended', () => {
    const pieces = ['<a><b x="1">te', 'xt</b><c y="'];
    expect(byScanner(pieces, bySaxes(pieces))).toStrictEqual(bySaxes(pieces));
  });
});
