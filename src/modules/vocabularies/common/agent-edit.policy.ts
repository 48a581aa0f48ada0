import type { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { ApiError } from '../../../core/http/api-error';

/**
 * Who may edit a person, institution, archive or platform record (its `can_edit`): its creator,
 * curators (staff) and admins. A record is shared — create-or-match makes one row serve every
 * owner's samples that name it — so the creator keeps this right only while no other owner uses it:
 * see assertMayChangeSharedAgent.
 */
export function canEditAgent(row: { createdBy: number | null }, user: AuthenticatedUser | undefined): boolean {
  if (!user) return false;
  return user.isStaff || user.isAdmin || (row.createdBy !== null && row.createdBy === user.userId);
}

/**
 * The PATCH rule for shared records: staff and admins always; the creator only while every sample
 * naming the record is one they may edit (and, for a person, no other account shows it as its
 * identity). Once another owner's sample uses it, one owner's edit would change what the other
 * publishes (their landing page and DataCite record), so only staff may change it.
 */
export async function assertMayChangeSharedAgent(
  row: { createdBy: number | null },
  user: AuthenticatedUser,
  noun: string,
  usedByOthers: () => Promise<boolean>,
): Promise<void> {
  if (user.isStaff || user.isAdmin) return;
  if (!canEditAgent(row, user)) throw ApiError.forbidden(`You may not edit this ${noun}.`);
  if (await usedByOthers()) {
    throw ApiError.forbidden(
      `You may not edit this ${noun}: samples of other owners name it, so only curators (staff) may change it. ` +
        `To describe your own samples differently, name another ${noun} in them.`,
    );
  }
}
