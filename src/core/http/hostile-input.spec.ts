import { jsonNestingExceeds, pathOfNul } from './hostile-input';

describe('jsonNestingExceeds', () => {
  const exceeds = (text: string, limit: number) => jsonNestingExceeds(Buffer.from(text), limit);

  it('counts arrays and objects, not brackets inside strings or after escaped quotes', () => {
    expect(exceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(exceeds('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(exceeds('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(exceeds('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(exceeds('[[]] [[]]', 2)).toBe(false);
  });

  it('stops at the limit on 20,000 levels', () => {
    expect(exceeds('['.repeat(20_000), 64)).toBe(true);
  });
});

describe('pathOfNul', () => {
  it('names the first field holding a NUL by its path, keys included', () => {
    expect(pathOfNul({ a: 'x', b: [{ c: 'y' }, { d: 'z\u0000' }] })).toBe('b.1.d');
    expect(pathOfNul({ q: ['ok', 'n\u0000'] })).toBe('q.1');
    expect(pathOfNul({ ['k\u0000']: 1 })).toBe('k\\u0000');
    expect(pathOfNul('\u0000')).toBe('body');
    expect(pathOfNul({ a: 1, b: null, c: ['x'] })).toBeUndefined();
  });
});
