import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { TeamMembership } from '../../accounts/accounts.service';
import { canEditOwned } from '../../accounts/owner-access';

/** The facts about a template that access depends on. */
export interface TemplateOwnership {
  userOwnerId: number | null;
  teamOwnerId: number | null;
}

export interface TemplateCaller {
  user: AuthenticatedUser;
  teams: TeamMembership[];
}

/**
 * Who may see and change a batch template (CONTRACT §2 and §4 applied to templates): the owner,
 * members of the owning team (viewers see, editors and managers edit), staff and admins (all).
 */
export const BatchTemplateAccess = {
  canView(template: TemplateOwnership, { user, teams }: TemplateCaller): boolean {
    if (user.isStaff || user.isAdmin || template.userOwnerId === user.userId) return true;
    return template.teamOwnerId !== null && teams.some((team) => team.teamId === template.teamOwnerId);
  },

  /** The rule samples follow: for a team's template, the caller's current role in the team decides. */
  canEdit(template: TemplateOwnership, { user, teams }: TemplateCaller): boolean {
    return canEditOwned(template, user, teams);
  },

  /** Null when the caller sees every template; otherwise the owner ids a listed template must match. */
  listFilter({ user, teams }: TemplateCaller): { userId: number; teamIds: number[] } | null {
    if (user.isStaff || user.isAdmin) return null;
    return { userId: user.userId, teamIds: teams.map((team) => team.teamId) };
  },
};
