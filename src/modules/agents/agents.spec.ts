import type { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { assertMayChangeSharedAgent, canEditAgent } from '../vocabularies/common/agent-edit.policy';
import { toIndividualDto } from './dto/individual.dto';
import { Individual } from './individual.entity';
import { individualLabel } from './individuals.service';
import { parsePathId } from '../../core/http/row-id';

const user = (overrides: Partial<AuthenticatedUser> = {}): AuthenticatedUser => ({
  userId: 7,
  email: 'u@example.org',
  isStaff: false,
  isAdmin: false,
  uploadPermission: true,
  tokenPairId: 'pair',
  tokenKind: 'session',
  connection: null,
  ...overrides,
});

describe('canEditAgent', () => {
  it('lets the creator, staff and admins edit; nobody else', () => {
    expect(canEditAgent({ createdBy: 7 }, user())).toBe(true);
    expect(canEditAgent({ createdBy: 8 }, user())).toBe(false);
    expect(canEditAgent({ createdBy: null }, user())).toBe(false);
    expect(canEditAgent({ createdBy: 8 }, user({ isStaff: true }))).toBe(true);
    expect(canEditAgent({ createdBy: null }, user({ isAdmin: true }))).toBe(true);
    expect(canEditAgent({ createdBy: 7 }, undefined)).toBe(false);
  });
});

describe('assertMayChangeSharedAgent', () => {
  const used = (answer: boolean) => () => Promise.resolve(answer);
  const status = (promise: Promise<void>) =>
    promise.then(
      () => 200,
      (error: ApiError) => error.getStatus(),
    );

  it('lets the creator change a record only while no other owner uses it; staff always', async () => {
    expect(await status(assertMayChangeSharedAgent({ createdBy: 7 }, user(), 'platform', used(false)))).toBe(200);
    expect(await status(assertMayChangeSharedAgent({ createdBy: 7 }, user(), 'platform', used(true)))).toBe(403);
    expect(await status(assertMayChangeSharedAgent({ createdBy: 8 }, user(), 'platform', used(false)))).toBe(403);
    const staff = user({ isStaff: true });
    expect(await status(assertMayChangeSharedAgent({ createdBy: 8 }, staff, 'platform', used(true)))).toBe(200);
  });
});

describe('individualLabel', () => {
  it('prefers the label, else joins the names', () => {
    expect(individualLabel({ label: ' M. Tharp ', fname: 'Marie' })).toBe('M. Tharp');
    expect(individualLabel({ fname: ' Marie ', lname: 'Tharp' })).toBe('Marie Tharp');
    expect(individualLabel({ lname: 'Tharp' })).toBe('Tharp');
    expect(individualLabel({ label: ' ', fname: null })).toBeNull();
    expect(individualLabel({ fname: 'a'.repeat(100), lname: 'b'.repeat(100) })).toHaveLength(200);
  });
});

describe('toIndividualDto', () => {
  const individual = Object.assign(new Individual(), {
    id: 1,
    label: 'Marie Tharp',
    fname: 'Marie',
    lname: 'Tharp',
    altLabel: null,
    description: null,
    address: '61 Route 9W',
    email: 'marie@example.org',
    phone: '555',
    fax: '556',
    individualUri: null,
    institutionDetail: null,
    country: null,
    institutions: [],
    createdBy: 7,
  });

  it('shows contact details only to those who may edit', () => {
    expect(toIndividualDto(individual, user())).toMatchObject({ email: 'marie@example.org', can_edit: true });
    expect(toIndividualDto(individual, user({ userId: 8 }))).toMatchObject({
      address: null,
      email: null,
      phone: null,
      fax: null,
      label: 'Marie Tharp',
      can_edit: false,
    });
  });
});

describe('parsePathId', () => {
  it('accepts row ids and answers 404 for anything else', () => {
    expect(parsePathId('42', 'x')).toBe(42);
    for (const raw of ['0', 'abc', '1.5', '-1', '2147483648', '99999999999', ' 1']) {
      expect(() => parsePathId(raw, 'Institution not found.')).toThrow(ApiError);
    }
  });
});
