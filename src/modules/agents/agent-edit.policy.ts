import type { AuthenticatedUser } from '../../core/auth/authenticated-user';

/** Who may edit an archive, institution or individual: its creator, curators (staff) and admins. */
export function canEditAgent(row: { createdBy: number | null }, user: AuthenticatedUser | undefined): boolean {
  if (!user) return false;
  return user.isStaff || user.isAdmin || (row.createdBy !== null && row.createdBy === user.userId);
}
