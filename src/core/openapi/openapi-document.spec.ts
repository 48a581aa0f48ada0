import { sortKeysDeep } from './openapi-document';

describe('sortKeysDeep', () => {
  it('orders keys at every depth and keeps array order', () => {
    const sorted = sortKeysDeep({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } });
    expect(JSON.stringify(sorted)).toBe('{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}');
  });
});
