import { expressTrustProxy, parseTrustProxy } from './trust-proxy';

describe('parseTrustProxy', () => {
  it('reads false, a hop count and address lists as Express does', () => {
    expect(parseTrustProxy('false').setting).toBe(false);
    expect(parseTrustProxy('0').setting).toBe(false);
    expect(expressTrustProxy(parseTrustProxy('2').setting)).toBe(2);
    expect(expressTrustProxy(parseTrustProxy('10.0.0.0/8, 192.168.1.7,loopback').setting)).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'loopback',
    ]);
    expect(expressTrustProxy(parseTrustProxy('fd00::/8,10.0.0.0/255.0.0.0').setting)).toEqual([
      'fd00::/8',
      '10.0.0.0/255.0.0.0',
    ]);
  });

  it('reads true as the nearest hop only, with a warning, never as every hop', () => {
    const parsed = parseTrustProxy('true');
    expect(parsed.setting).toEqual({ hops: 1 });
    expect(parsed.warning).toContain('1 hop');
  });

  it.each(['maybe', '10.0.0.0/33', '10.0.0.1,', '999', 'example.org'])('refuses %s', (value) => {
    expect(() => parseTrustProxy(value)).toThrow(/must be/);
  });
});
