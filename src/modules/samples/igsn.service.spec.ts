import { loadAppConfig } from '../../core/config/app-config';
import { IgsnService, counterOfSuffix, formatMintedSuffix, namespaceCapacity } from './igsn.service';

describe('IGSN syntax', () => {
  const service = new IgsnService(
    loadAppConfig({ DATABASE_URL: 'postgres://x@h/d', REDIS_URL: 'redis://h', JWT_SECRET: 'x'.repeat(32) }),
  );

  it('pads the base-36 counter so the suffix is 9 characters', () => {
    expect(formatMintedSuffix('IEABC', 1)).toBe('IEABC0001');
    expect(formatMintedSuffix('IEABC', 36)).toBe('IEABC0010');
    expect(formatMintedSuffix('IEABC', namespaceCapacity('IEABC'))).toBe('IEABCZZZZ');
    expect(formatMintedSuffix('ABC', 1)).toBe('ABC000001');
    expect(() => formatMintedSuffix('IEABC', 36 ** 4)).toThrow(RangeError);
  });

  it('reads the counter back from a minted suffix', () => {
    expect(counterOfSuffix('IEABC', 'IEABC0010')).toBe(36);
    expect(counterOfSuffix('IEA', 'IEABCZZZZ')).toBe(counterOfSuffix('IEA', 'IEABD0000') - 1);
    expect(formatMintedSuffix('IEA', counterOfSuffix('IEA', 'IEABC0000'))).toBe('IEABC0000');
  });

  it('accepts the DOI form, the bare suffix and any letter case', () => {
    expect(service.parse('10.5072/IEABC0001')).toBe('IEABC0001');
    expect(service.parse('ieabc0001')).toBe('IEABC0001');
    expect(service.parse('10.9999/IEABC0001')).toBeUndefined();
    expect(service.parse('IEAB')).toBeUndefined();
    expect(service.parse('IEABC 001')).toBeUndefined();
  });

  it('checks a supplied IGSN against the registry code', () => {
    expect(service.parseSupplied('10.5072/ieabc-x.01', 'IEABC')).toBe('IEABC-X.01');
    expect(() => service.parseSupplied('IEXYZ0001', 'IEABC')).toThrow('must start with the registry code IEABC');
  });
});
