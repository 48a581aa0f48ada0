import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { FieldErrors } from '../../../core/http/error-body';
import { BatchTemplateAccess } from './batch-template-access';
import { collectorTags, normaliseCollectors, normalisePresets, normaliseSelectedFields } from './batch-template-input';
import { spreadsheetFilename } from './batch-templates.service';

describe('batch template input', () => {
  it('keeps catalog keys (labels become keys), drops repeats, names unknown entries by index', () => {
    const errors: FieldErrors = {};
    expect(normaliseSelectedFields(['country', 'Platform Name', 'colour', 'country', 'size'], errors)).toEqual([
      'country',
      'platform_label',
      'size',
    ]);
    expect(errors).toEqual({ 'selected_fields.2': ['unknown field "colour"; use a key of the batch field catalog'] });
  });

  it('trims presets and drops blanks and repeats', () => {
    expect(normalisePresets([' R/V Atlantis ', '', 'R/V Atlantis', 'Alvin'])).toEqual(['R/V Atlantis', 'Alvin']);
    expect(normalisePresets(null)).toEqual([]);
  });

  it('stores collectors given as names or {label, description} as tags; errors name the entry', () => {
    const errors: FieldErrors = {};
    const tags = normaliseCollectors(
      [
        'Jane Doe',
        { label: ' John Roe ', description: 'Deck technician' },
        { description: 'no label' },
        7,
        { label: 'X', role: 'y' },
      ],
      errors,
    );
    expect(tags).toEqual([
      { label: 'Jane Doe', description: null },
      { label: 'John Roe', description: 'Deck technician' },
      { label: 'X', description: null },
    ]);
    expect(errors).toEqual({
      'collectors.2.label': ['is required'],
      'collectors.3': ['must be a name or an object {label, description}'],
      'collectors.4.role': ['This field is not allowed.'],
    });
    expect(collectorTags(['Ann', { label: 'Bo', description: 'd' }, null, { description: 'x' }])).toEqual([
      { label: 'Ann', description: null },
      { label: 'Bo', description: 'd' },
    ]);
  });

  it('names the workbook file in ASCII', () => {
    expect(spreadsheetFilename({ id: 12, version: 3, label: 'Croisière AT-42 / cores' })).toBe(
      'batch-template-12-v3-croisiere-at-42-cores.xlsx',
    );
    expect(spreadsheetFilename({ id: 1, version: 1, label: '日本' })).toBe('batch-template-1-v1.xlsx');
  });
});

describe('BatchTemplateAccess', () => {
  const user = (userId: number, extra: Partial<AuthenticatedUser> = {}): AuthenticatedUser => ({
    userId,
    email: `${userId}@example.org`,
    isStaff: false,
    isAdmin: false,
    uploadPermission: true,
    tokenPairId: 'pair',
    tokenKind: 'session',
    connection: null,
    ...extra,
  });
  const template = { userOwnerId: 1, teamOwnerId: 10 };

  it('lets the owner and staff see and edit', () => {
    const own = { userOwnerId: 1, teamOwnerId: null };
    for (const caller of [user(1), user(2, { isStaff: true }), user(3, { isAdmin: true })]) {
      expect(BatchTemplateAccess.canView(own, { user: caller, teams: [] })).toBe(true);
      expect(BatchTemplateAccess.canEdit(own, { user: caller, teams: [] })).toBe(true);
    }
    for (const caller of [user(2, { isStaff: true }), user(3, { isAdmin: true })]) {
      expect(BatchTemplateAccess.canEdit(template, { user: caller, teams: [] })).toBe(true);
    }
  });

  it("lets a team template's creator edit only while their current role in the team allows it", () => {
    expect(BatchTemplateAccess.canEdit(template, { user: user(1), teams: [{ teamId: 10, role: 'editor' }] })).toBe(
      true,
    );
    expect(BatchTemplateAccess.canEdit(template, { user: user(1), teams: [{ teamId: 10, role: 'viewer' }] })).toBe(
      false,
    );
    expect(BatchTemplateAccess.canEdit(template, { user: user(1), teams: [] })).toBe(false);
  });

  it('lets team viewers see, and team editors and managers edit', () => {
    const viewer = { user: user(4), teams: [{ teamId: 10, role: 'viewer' as const }] };
    const editor = { user: user(5), teams: [{ teamId: 10, role: 'editor' as const }] };
    expect(BatchTemplateAccess.canView(template, viewer)).toBe(true);
    expect(BatchTemplateAccess.canEdit(template, viewer)).toBe(false);
    expect(BatchTemplateAccess.canEdit(template, editor)).toBe(true);
  });

  it('hides templates from everyone else', () => {
    const stranger = { user: user(6), teams: [{ teamId: 11, role: 'manager' as const }] };
    expect(BatchTemplateAccess.canView(template, stranger)).toBe(false);
    expect(BatchTemplateAccess.canView({ userOwnerId: 1, teamOwnerId: null }, stranger)).toBe(false);
    expect(BatchTemplateAccess.listFilter(stranger)).toEqual({ userId: 6, teamIds: [11] });
    expect(BatchTemplateAccess.listFilter({ user: user(7, { isStaff: true }), teams: [] })).toBeNull();
  });
});
