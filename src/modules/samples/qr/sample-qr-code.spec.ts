import { sampleResolvableUrl } from './sample-qr-code';

describe('sampleResolvableUrl', () => {
  const datacite = {
    apiUrl: 'https://api.test.datacite.org',
    repositoryId: 'X.Y',
    password: 'p',
    concurrency: 1,
    timeoutMs: 1,
    requestsPer5Min: 2500,
    bulkRequestsPer5Min: 500,
  };

  it('is the DOI at the resolver when DOIs are registered, else the landing page', () => {
    expect(sampleResolvableUrl('10.5072/IEABC0001', { datacite }, 'https://r.example.org')).toBe(
      'https://doi.org/10.5072/IEABC0001',
    );
    expect(sampleResolvableUrl('10.5072/IEABC0001', { datacite: null }, 'https://r.example.org/')).toBe(
      'https://r.example.org/samples/IEABC0001',
    );
  });
});
