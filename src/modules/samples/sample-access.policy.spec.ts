import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { AccountsService } from '../accounts/accounts.service';
import { SampleAccessFacts, SampleAccessPolicy, SampleCaller } from './sample-access.policy';

const now = new Date('2026-11-22T12:00:00Z');
const policy = new SampleAccessPolicy({} as AccountsService);

function user(id: number, extra: Partial<AuthenticatedUser> = {}): AuthenticatedUser {
  return {
    userId: id,
    email: `u${id}@example.org`,
    isStaff: false,
    isAdmin: false,
    uploadPermission: true,
    tokenPairId: 'x',
    tokenKind: 'session',
    connection: null,
    ...extra,
  };
}

function caller(id: number, teams: SampleCaller['teams'] = [], extra: Partial<AuthenticatedUser> = {}): SampleCaller {
  return { user: user(id, extra), teams };
}

function sample(extra: Partial<SampleAccessFacts> = {}): SampleAccessFacts {
  return {
    metadataStoreStatus: 'published',
    publishDate: null,
    isDeactivated: false,
    userOwnerId: 1,
    teamOwnerId: 10,
    ...extra,
  };
}

describe('SampleAccessPolicy', () => {
  it('shows published samples to everyone', () => {
    expect(policy.visibility(sample(), undefined, now)).toBe('visible');
    expect(policy.visibility(sample({ publishDate: new Date('2020-01-01') }), undefined, now)).toBe('visible');
  });

  it('never shows a deactivated sample, not even to its owner or staff: it is gone (410)', () => {
    const gone = sample({ isDeactivated: true });
    expect(policy.visibility(gone, caller(1), now)).toBe('gone');
    expect(policy.visibility(gone, caller(2, [], { isAdmin: true }), now)).toBe('gone');
    expect(policy.canView(gone, caller(1), now)).toBe(false);
    expect(policy.canEdit(gone, caller(1))).toBe(false);
    expect(policy.canDeactivate(gone, caller(1))).toBe(false);
  });

  it('keeps a sample deactivated before it was ever public unknown to all but those who could see it', () => {
    const deactivatedAt = new Date('2026-01-01T00:00:00Z');
    const draft = sample({ isDeactivated: true, metadataStoreStatus: 'draft', deactivatedAt });
    const embargoed = sample({ isDeactivated: true, publishDate: new Date('2026-06-01'), deactivatedAt });
    const wasPublic = sample({ isDeactivated: true, publishDate: new Date('2025-06-01'), deactivatedAt });
    for (const hidden of [draft, embargoed]) {
      expect(policy.visibility(hidden, undefined, now)).toBe('hidden');
      expect(policy.visibility(hidden, caller(2), now)).toBe('hidden');
      expect(policy.visibility(hidden, caller(1), now)).toBe('gone');
      expect(policy.visibility(hidden, caller(3, [{ teamId: 10, role: 'viewer' }]), now)).toBe('gone');
    }
    expect(policy.visibility(wasPublic, undefined, now)).toBe('gone');
    expect(policy.visibility(wasPublic, caller(2), now)).toBe('gone');
  });

  it.each([
    ['draft', sample({ metadataStoreStatus: 'draft' })],
    ['pending-review', sample({ metadataStoreStatus: 'pending-review' })],
    ['embargoed', sample({ publishDate: new Date('2027-01-01') })],
  ])('needs a token with view permission for a %s sample', (_label, facts) => {
    expect(policy.visibility(facts, undefined, now)).toBe('needs-token');
    expect(policy.visibility(facts, caller(2), now)).toBe('hidden');
    expect(policy.visibility(facts, caller(1), now)).toBe('visible');
    expect(policy.visibility(facts, caller(3, [{ teamId: 10, role: 'viewer' }]), now)).toBe('visible');
    expect(policy.visibility(facts, caller(4, [], { isStaff: true }), now)).toBe('visible');
  });

  it('lets the owner, team editors and managers, staff and admins edit; not viewers or strangers', () => {
    const facts = sample();
    expect(policy.canEdit(sample({ teamOwnerId: null }), caller(1))).toBe(true);
    expect(policy.canEdit(sample({ teamOwnerId: null }), caller(2))).toBe(false);
    expect(policy.canEdit(facts, caller(2, [{ teamId: 10, role: 'editor' }]))).toBe(true);
    expect(policy.canEdit(facts, caller(2, [{ teamId: 10, role: 'manager' }]))).toBe(true);
    expect(policy.canEdit(facts, caller(2, [{ teamId: 10, role: 'viewer' }]))).toBe(false);
    expect(policy.canEdit(facts, caller(2, [{ teamId: 11, role: 'manager' }]))).toBe(false);
    expect(policy.canEdit(facts, caller(2, [], { isStaff: true }))).toBe(true);
    expect(policy.canEdit(facts, undefined)).toBe(false);
  });

  it("judges a team sample by the caller's current role, not by who registered it", () => {
    const facts = sample();
    expect(policy.canEdit(facts, caller(1, [{ teamId: 10, role: 'editor' }]))).toBe(true);
    expect(policy.canEdit(facts, caller(1, [{ teamId: 10, role: 'viewer' }]))).toBe(false);
    expect(policy.canEdit(facts, caller(1))).toBe(false);
    expect(policy.editableCondition('s', caller(1, [{ teamId: 10, role: 'viewer' }])).toQuery().values).toEqual([
      1,
      [],
    ]);
  });

  it('states its rules as SQL conditions that number their own parameters', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const visible = policy.visibleCondition('s', caller(7, [{ teamId: 10, role: 'viewer' }]), now).toQuery();
    expect(visible.values).toEqual([now, 7, [10]]);
    expect(visible.text).toContain('s.publish_date <= $1');
    expect(visible.text).toContain('s.user_owner_id = $2');
    expect(visible.text).toContain('s.team_owner_id = ANY($3::int[])');
    expect(policy.visibleCondition('s', caller(1, [], { isStaff: true }), now).toQuery()).toEqual({
      text: 'NOT s.is_deactivated',
      values: [],
    });
    // The harvest condition names `now` twice under one number.
    const harvestable = policy.harvestableCondition('s', now).toQuery();
    expect(harvestable.values).toEqual([now]);
    expect(harvestable.text.match(/\$1::timestamptz/g)).toHaveLength(2);
  });
});
