import { element, escapeXmlAttribute, escapeXmlText, serializeXml } from './xml-writer';

describe('xml-writer', () => {
  it('drops elements with nothing to contain, and blank or missing attributes', () => {
    expect(element('a')).toBeNull();
    expect(element('a', { x: '1' }, null, undefined, false, '  ')).toBeNull();
    expect(element('a', {}, element('b', {}, ''))).toBeNull();
    expect(element('a', { x: null, y: '', z: 'kept' }, 0)).toEqual({
      name: 'a',
      attributes: [['z', 'kept']],
      children: ['0'],
    });
  });

  it('escapes text and attributes, and removes characters XML 1.0 cannot carry', () => {
    expect(escapeXmlText('a < b && c > d]]>\r\n')).toBe('a &lt; b &amp;&amp; c &gt; d]]&gt;&#xD;\n');
    expect(escapeXmlAttribute('say "hi"\tnow\nthen')).toBe('say &quot;hi&quot;&#x9;now&#xA;then');
    expect(escapeXmlText('ok\u0000\u001F\uFFFF\uDC00 \uD83E\uDEA8')).toBe('ok \uD83E\uDEA8');
  });

  it('writes text inline and nested elements indented', () => {
    const root = element(
      'r',
      { xmlns: 'urn:x' },
      element('t', { k: 'a"b' }, 'x & y'),
      element('e', {}, element('f', {}, 1.5)),
    );
    expect(serializeXml(root!)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<r xmlns="urn:x">',
        '  <t k="a&quot;b">x &amp; y</t>',
        '  <e>',
        '    <f>1.5</f>',
        '  </e>',
        '</r>',
        '',
      ].join('\n'),
    );
  });
});
