import { ApiError } from '../../../core/http/api-error';
import { describeRowError } from './batch-rejected';
import { RowClaims } from './row-claims';

function refusal(claim: () => void): string {
  try {
    claim();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return describeRowError(error);
  }
  throw new Error('the claim was accepted');
}

describe('RowClaims', () => {
  it('refuses a name an earlier row has, whatever its case, naming that row', () => {
    const claims = new RowClaims();
    claims.claimName('Core A', 2);
    claims.claimName('Core B', 3);
    expect(refusal(() => claims.claimName('core a', 7))).toBe('name: duplicates the name in row 2');
  });

  it('refuses a repeated external sample id, and ignores rows without one', () => {
    const claims = new RowClaims();
    claims.claimExternalId(undefined, 2);
    claims.claimExternalId(null, 3);
    claims.claimExternalId('', 4);
    claims.claimExternalId('EXT-1', 5);
    expect(refusal(() => claims.claimExternalId('EXT-1', 9))).toBe(
      'external_sample_id: duplicates the external sample id in row 5',
    );
    // External ids are compared exactly: another case is another id.
    claims.claimExternalId('ext-1', 10);
  });

  it('refuses an IGSN supplied twice', () => {
    const claims = new RowClaims();
    claims.claimIgsn('IEABC0001', 4);
    expect(refusal(() => claims.claimIgsn('IEABC0001', 6))).toBe('igsn: duplicates the IGSN in row 4');
  });

  it('keeps the first claimant when a later row is refused', () => {
    const claims = new RowClaims();
    claims.claimName('Same', 2);
    refusal(() => claims.claimName('same', 3));
    expect(refusal(() => claims.claimName('SAME', 4))).toBe('name: duplicates the name in row 2');
  });
});

describe('describeRowError', () => {
  it('lets anything but a refusal through (not the row’s fault)', () => {
    expect(() => describeRowError(new Error('connection lost'))).toThrow('connection lost');
  });
});
