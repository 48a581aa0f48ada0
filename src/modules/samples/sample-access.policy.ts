import { Injectable } from '@nestjs/common';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Sql, bind, raw, sql } from '../../core/database/sql';
import { AccountsService, TeamMembership } from '../accounts/accounts.service';
import { canEditOwned, editableOwnedSql } from '../accounts/owner-access';
import { StoreStatus } from './sample.entity';

/** The facts about a sample that visibility and permissions depend on. */
export interface SampleAccessFacts {
  metadataStoreStatus: StoreStatus;
  publishDate: Date | null;
  isDeactivated: boolean;
  userOwnerId: number | null;
  teamOwnerId: number | null;
  /** When it was deactivated (null while active, and for rows deactivated before this was kept). */
  deactivatedAt?: Date | null;
}

export interface SampleCaller {
  user: AuthenticatedUser;
  teams: TeamMembership[];
}

/** `gone`: deactivated, and the caller may know it existed (410 with a tombstone). */
export type SampleVisibility = 'visible' | 'needs-token' | 'hidden' | 'gone';

/**
 * The one place that decides who may see and edit a sample (specification part 3 and CONTRACT
 * §4). Fetch, search, update, deactivation, batches, exports and legacy XML all ask this policy,
 * either per row (`visibility`, `canEdit`) or as a SQL condition (`visibleCondition`,
 * `editableCondition`: composed `Sql` values that repositories embed in their statements).
 *
 * - Deactivated samples are never visible. They are `gone` (410) to callers who could see them
 *   before, and to everyone when they were public before their deactivation; a sample deactivated
 *   before it was ever public stays unknown (404) to everyone else, as to OAI-PMH harvesters.
 * - Published samples whose publish_date is not in the future are public.
 * - Everything else (draft, pending-review, embargoed) needs a token and view permission:
 *   the owner, any member of the owning team, staff or an admin.
 * - Edit: the owner of a user-owned sample, a CURRENT editor or manager of the owning team (who
 *   registered a team's sample does not count), staff or an admin (canEditOwned).
 */
@Injectable()
export class SampleAccessPolicy {
  constructor(private readonly accountsService: AccountsService) {}

  async caller(user: AuthenticatedUser | undefined): Promise<SampleCaller | undefined> {
    if (!user) return undefined;
    return { user, teams: user.teams ?? (await this.accountsService.teamMemberships(user.userId)) };
  }

  static isPublic(sample: SampleAccessFacts, now: Date): boolean {
    return (
      !sample.isDeactivated &&
      sample.metadataStoreStatus === 'published' &&
      (sample.publishDate === null || sample.publishDate.getTime() <= now.getTime())
    );
  }

  /** Whether a deactivated sample had been public (published, embargo over) when it was deactivated. */
  static wasPublicBeforeDeactivation(sample: SampleAccessFacts): boolean {
    const until = sample.deactivatedAt ?? null;
    return (
      sample.metadataStoreStatus === 'published' &&
      (sample.publishDate === null || until === null || sample.publishDate.getTime() <= until.getTime())
    );
  }

  canView(sample: SampleAccessFacts, caller: SampleCaller | undefined, now: Date): boolean {
    return this.visibility(sample, caller, now) === 'visible';
  }

  visibility(sample: SampleAccessFacts, caller: SampleCaller | undefined, now: Date): SampleVisibility {
    if (sample.isDeactivated) {
      return SampleAccessPolicy.wasPublicBeforeDeactivation(sample) || this.isViewer(sample, caller)
        ? 'gone'
        : 'hidden';
    }
    if (SampleAccessPolicy.isPublic(sample, now)) return 'visible';
    if (!caller) return 'needs-token';
    return this.isViewer(sample, caller) ? 'visible' : 'hidden';
  }

  /** Staff, an admin, the owner or a member of the owning team: who sees a sample that is not public. */
  private isViewer(sample: SampleAccessFacts, caller: SampleCaller | undefined): boolean {
    if (!caller) return false;
    const { user, teams } = caller;
    if (user.isStaff || user.isAdmin || sample.userOwnerId === user.userId) return true;
    return sample.teamOwnerId !== null && teams.some((team) => team.teamId === sample.teamOwnerId);
  }

  canEdit(sample: SampleAccessFacts, caller: SampleCaller | undefined): boolean {
    if (!caller || sample.isDeactivated) return false;
    return canEditOwned(sample, caller.user, caller.teams);
  }

  /** Deactivation needs edit permission: the same rule, named for `can_deactivate`. */
  canDeactivate(sample: SampleAccessFacts, caller: SampleCaller | undefined): boolean {
    return this.canEdit(sample, caller);
  }

  /*
   * The conditions below are on `alias.*`, a name written in the code (`s` in every statement today).
   */

  /** `alias.*` rows the public may see. */
  publicCondition(alias: string, now: Date): Sql {
    const a = raw(alias);
    return sql`(NOT ${a}.is_deactivated AND ${a}.metadata_store_status = 'published'
              AND (${a}.publish_date IS NULL OR ${a}.publish_date <= ${now}))`;
  }

  /**
   * `alias.*` rows a public harvester (OAI-PMH) may know of: public samples, and deactivated samples
   * that were public before they were deactivated (shown as deleted records, never with their fields).
   * A sample deactivated before it was ever public stays unknown, as it is to anonymous fetches.
   */
  harvestableCondition(alias: string, now: Date): Sql {
    const a = raw(alias);
    const at = bind(now);
    return sql`(${a}.metadata_store_status = 'published'
              AND (${a}.publish_date IS NULL
                   OR ${a}.publish_date <= LEAST(${at}::timestamptz, COALESCE(${a}.deactivated_at, ${at}::timestamptz))))`;
  }

  /** `alias.*` rows the caller may see, the same rules as `visibility`. */
  visibleCondition(alias: string, caller: SampleCaller | undefined, now: Date): Sql {
    const open = this.publicCondition(alias, now);
    if (!caller) return open;
    const a = raw(alias);
    if (caller.user.isStaff || caller.user.isAdmin) return sql`NOT ${a}.is_deactivated`;
    const teamIds = caller.teams.map((team) => team.teamId);
    return sql`(${open} OR (NOT ${a}.is_deactivated AND (${a}.user_owner_id = ${caller.user.userId}
              OR ${a}.team_owner_id = ANY(${teamIds}::int[]))))`;
  }

  /** `alias.*` rows the caller may edit, the same rules as `canEdit` (canEditOwned). */
  editableCondition(alias: string, caller: SampleCaller): Sql {
    const a = raw(alias);
    if (caller.user.isStaff || caller.user.isAdmin) return sql`NOT ${a}.is_deactivated`;
    return sql`(NOT ${a}.is_deactivated AND ${editableOwnedSql(alias, caller.user, caller.teams)})`;
  }
}
