import type { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Sql, raw, sql } from '../../core/database/sql';
import type { TeamMembership } from './accounts.service';

/** Who owns a sample, batch or template: a user, or a team (then `userOwnerId` is who created it). */
export interface OwnedRow {
  userOwnerId: number | null;
  teamOwnerId: number | null;
}

/**
 * May this caller change a row they or a team own? Staff and admins may; a user-owned row's owner
 * may; a team-owned row needs the caller's CURRENT role in that team to be editor or manager — who
 * created the row no longer counts, so a member demoted to viewer (or removed) stops editing at once.
 */
export function canEditOwned(row: OwnedRow, user: AuthenticatedUser, teams: readonly TeamMembership[]): boolean {
  if (user.isStaff || user.isAdmin) return true;
  if (row.teamOwnerId === null) return row.userOwnerId !== null && row.userOwnerId === user.userId;
  return teams.some((team) => team.teamId === row.teamOwnerId && team.role !== 'viewer');
}

/** The teams whose rows the caller may edit (editor or manager), for SQL conditions built like canEditOwned. */
export function editorTeamIds(teams: readonly TeamMembership[]): number[] {
  return teams.filter((team) => team.role !== 'viewer').map((team) => team.teamId);
}

/**
 * canEditOwned as a SQL condition on `alias.user_owner_id`/`alias.team_owner_id` for a caller who
 * is not staff. `alias` is a name written in the code.
 */
export function editableOwnedSql(alias: string, user: AuthenticatedUser, teams: readonly TeamMembership[]): Sql {
  const a = raw(alias);
  return sql`((${a}.team_owner_id IS NULL AND ${a}.user_owner_id = ${user.userId})
            OR ${a}.team_owner_id = ANY(${editorTeamIds(teams)}::int[]))`;
}
