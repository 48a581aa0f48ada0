import { textLength } from './text-length';

describe('textLength (code points, as PostgreSQL counts varchar)', () => {
  it('counts variation selectors, surrogate pairs as one, and lone surrogates as one', () => {
    expect(textLength('A\uFE0F'.repeat(200))).toBe(400);
    expect(textLength('💩💩')).toBe(2);
    expect(textLength('\uD800x')).toBe(2);
    expect(textLength('')).toBe(0);
  });
});
