import { doiUrl, isBareDoi, isDoi, orcidId, orcidUrl, resourceIdentifier, rorUrl } from './persistent-identifiers';

describe('persistent identifiers', () => {
  it('reads an ORCID iD bare or as an orcid.org URL, check character upper case', () => {
    expect(orcidId(' 0000-0002-1825-009x ')).toBe('0000-0002-1825-009X');
    expect(orcidId('https://orcid.org/0000-0002-1825-0097/')).toBe('0000-0002-1825-0097');
    expect(orcidId('http://www.orcid.org/0000-0002-1825-0097')).toBe('0000-0002-1825-0097');
    expect(orcidUrl('0000-0002-1825-0097')).toBe('https://orcid.org/0000-0002-1825-0097');
    expect(orcidId('0000-0002-1825')).toBeNull();
    expect(orcidId('Marie Tharp')).toBeNull();
    expect(orcidUrl(null)).toBeNull();
  });

  it('reads a sandbox.orcid.org URL only when asked to', () => {
    expect(orcidId('https://sandbox.orcid.org/0000-0002-1825-0097')).toBeNull();
    expect(orcidId('https://sandbox.orcid.org/0000-0002-1825-0097', { sandbox: true })).toBe('0000-0002-1825-0097');
  });

  it('reads a ROR id bare or as a ror.org URL, lower case', () => {
    expect(rorUrl('00HJ8S172')).toBe('https://ror.org/00hj8s172');
    expect(rorUrl('https://www.ror.org/00hj8s172/')).toBe('https://ror.org/00hj8s172');
    expect(rorUrl('https://ror.org/not-a-ror')).toBeNull();
    expect(rorUrl(undefined)).toBeNull();
  });

  it('tells a DOI from other addresses', () => {
    expect(isDoi('10.1594/PANGAEA.123456')).toBe(true);
    expect(isDoi('doi:10.1594/PANGAEA.123456')).toBe(true);
    expect(isDoi('https://dx.doi.org/10.1594/PANGAEA.123456')).toBe(true);
    expect(isDoi('https://example.org/10.1594/x')).toBe(false);
    expect(isBareDoi('10.1594/PANGAEA.123456')).toBe(true);
    expect(isBareDoi('doi:10.1594/PANGAEA.123456')).toBe(false);
    expect(doiUrl('10.5072/IEABC0001')).toBe('https://doi.org/10.5072/IEABC0001');
  });

  it('takes a related resource address as a DOI only when written at the resolver or as doi:', () => {
    expect(resourceIdentifier(' https://doi.org/10.1594/PANGAEA%2F1 ')).toEqual({
      type: 'DOI',
      value: '10.1594/PANGAEA/1',
    });
    expect(resourceIdentifier('doi:10.1594/%E0%A4%A')).toEqual({ type: 'DOI', value: '10.1594/%E0%A4%A' });
    expect(resourceIdentifier('10.1594/PANGAEA.1')).toEqual({ type: 'URL', value: '10.1594/PANGAEA.1' });
    expect(resourceIdentifier('https://example.org/a')).toEqual({ type: 'URL', value: 'https://example.org/a' });
  });
});
