import { XmlCharacterProblem, firstXmlTag, xmlStartTags } from './xml-tags';

describe('xmlStartTags (linear scan of workbook structure)', () => {
  it('reads names, namespaced attributes, quotes and entities', () => {
    const tags = [...xmlStartTags('<x:sheets><x:sheet name="A &amp; B" r:id=\'rId1\'/><sheet name="a>b"/></x:sheets>')];
    expect(tags.map((tag) => tag.name)).toEqual(['sheets', 'sheet', 'sheet']);
    expect(Object.fromEntries(tags[1].attributes)).toEqual({ name: 'A & B', 'r:id': 'rId1' });
    expect(tags[2].attributes.get('name')).toBe('a>b');
  });

  it('skips end tags, comments and declarations, and broken tags', () => {
    expect([...xmlStartTags('<?xml version="1.0"?><!-- c --><a><b</a>')].map((tag) => tag.name)).toEqual(['a']);
  });

  // A quadratic scan of these 1.8 MB takes minutes (the test times out); a linear one milliseconds.
  it('gets through a flood of unfinished tags', () => {
    const flood = '<sheet'.repeat(300_000);
    expect([...xmlStartTags(flood)]).toEqual([]);
    expect(firstXmlTag(flood, 'dimension')).toBeUndefined();
  });

  it('refuses character references XML does not allow', () => {
    for (const reference of ['&#x110000;', '&#xD800;', '&#0;']) {
      expect(() => [...xmlStartTags(`<sheet name="${reference}"/>`)]).toThrow(XmlCharacterProblem);
    }
    expect(firstXmlTag('<sheet name="&#x1F4A9;"/>', 'sheet')?.attributes.get('name')).toBe('💩');
  });
});
