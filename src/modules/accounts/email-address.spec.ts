import { emailBucket, emailKey } from './email-address';

describe('email folding', () => {
  it('keys an address by its Unicode lower case, so tİm is not tim', () => {
    expect(emailKey(' TIM@Example.ORG ')).toBe('tim@example.org');
    expect(emailKey('tİm@x.org')).not.toBe(emailKey('tim@x.org'));
    expect(emailKey('JÖRG@x.de')).toBe(emailKey('jörg@x.de'));
    // NFC: a precomposed and a decomposed ö are one address
    expect(emailKey('jo\u0308rg@x.de')).toBe(emailKey('jörg@x.de'));
  });

  it('buckets every look-alike spelling with the plain address, and equal keys always together', () => {
    for (const variant of ['tİm@x.org', 'TIM@x.org', 'tím@x.org', 'tım@x.org']) {
      expect(emailBucket(variant)).toBe('tim@x.org');
    }
    expect(emailBucket('jörg@x.de')).toBe(emailBucket('JÖRG@x.de'));
    expect(emailBucket('ann@x.org')).not.toBe(emailBucket('tim@x.org'));
  });
});
