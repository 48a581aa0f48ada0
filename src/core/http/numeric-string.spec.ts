import { numberFromJson } from './numeric-string';

describe('numberFromJson', () => {
  it.each([
    ['38.957178', 38.957178],
    [' -72.8 ', -72.8],
    ['+5', 5],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['-1.5E-2', -0.015],
    ['0', 0],
  ])('reads the decimal string %p as %p', (text, number) => {
    expect(numberFromJson(text)).toBe(number);
  });

  it.each(['', ' ', 'abc', 'NaN', 'Infinity', '-Infinity', '0x10', '1,5', '1.2.3', '12abc', '1e', '--1', '1e999'])(
    'leaves %p as sent, for the validator to refuse',
    (text) => {
      expect(numberFromJson(text)).toBe(text);
    },
  );

  it('leaves numbers, null, booleans and objects alone', () => {
    expect(numberFromJson(41.5)).toBe(41.5);
    expect(numberFromJson(null)).toBeNull();
    expect(numberFromJson(true)).toBe(true);
    const object = { value: 1 };
    expect(numberFromJson(object)).toBe(object);
  });
});
