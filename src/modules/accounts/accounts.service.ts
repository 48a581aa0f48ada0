import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { SqlLookup } from '../../core/database/sql-lookup';
import { ApiError } from '../../core/http/api-error';
import { ORCID_RESOLVER, orcidId } from '../../core/identifiers/persistent-identifiers';
import { IndividualRepository } from '../agents/individual.repository';
import { emailKey } from './email-address';
import { PasswordHasher } from './password-hasher';
import {
  RegistryCodeAccessDto,
  RegistryCodeRole,
  SAMPLE_PERMISSIONS,
  SamplePermission,
} from './dto/registry-code-access.dto';
import { REGISTRY_CODE_PATTERN, RegistryCode } from './registry-code.entity';
import { RegistryCodeRepository } from './registry-code.repository';
import { TEAM_ROLES, Team, TeamMember, TeamRole } from './team.entity';
import { TeamRepository } from './team.repository';
import { User } from './user.entity';
import { UserRepository } from './user.repository';

export interface CreateUserInput {
  email: string;
  password: string;
  name?: string;
  orcid?: string;
  uploadPermission?: boolean;
  isStaff?: boolean;
  isAdmin?: boolean;
}

export interface TeamMembership {
  teamId: number;
  role: TeamRole;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The candidate citext found, if it is the same address under emailKey (citext folds more). */
function sameAddress<T extends User>(candidate: T | null, email: string): T | undefined {
  return candidate?.email && emailKey(candidate.email) === emailKey(email) ? candidate : undefined;
}

function uniqueViolation(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23505';
}

/** Who an ORCID sign-in says signed in: the iD, and the name and verified address it gave, if any. */
export interface OrcidIdentity {
  orcid: string;
  name?: string | null;
  email?: string | null;
}

interface NewAccount {
  email: string | null;
  passwordHash: string | null;
  name: string | null;
  orcid: string | null;
  uploadPermission: boolean;
  isStaff: boolean;
  isAdmin: boolean;
}

/** Who owns a new registry code: a user (by email or id) or a team (by name or id). */
export type RegistryCodeOwner = { email?: string; team?: string; userId?: number; teamId?: number };

/**
 * The 409 for a new code whose namespace holds IGSNs registered under a shorter code (the database
 * refuses it: migration RegistryCodeNamespaceFree), or undefined for any other error.
 */
function namespaceTaken(code: string, error: unknown): ApiError | undefined {
  const driverError =
    error instanceof QueryFailedError ? (error.driverError as { constraint?: string; detail?: string }) : undefined;
  if (driverError?.constraint !== 'registry_code_namespace_free') return undefined;
  const { count, first } = JSON.parse(driverError.detail ?? '{}') as { count?: number; first?: string };
  const igsns = count === 1 ? '1 IGSN is' : `${count} IGSNs are`;
  return ApiError.conflict(
    `Registry code ${code} cannot be created: ${igsns} already registered in its namespace under a ` +
      `shorter code (first ${first}), and would change owner.`,
    { code: [`${igsns} already registered in this namespace under a shorter code (first ${first})`] },
  );
}

/**
 * Accounts, teams and registry codes: who exists, who belongs where, who owns which code (statements
 * in UserRepository, TeamRepository and RegistryCodeRepository).
 *
 * Over 400 lines on purpose, for now: 22 files in other modules inject this one service for all
 * three concerns, several of them being split by other work. The next step is a TeamsService and a
 * RegistryCodesService beside it (the methods from createTeam on), once those callers have settled.
 */
@Injectable()
export class AccountsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly userRepository: UserRepository,
    private readonly teamRepository: TeamRepository,
    private readonly registryCodeRepository: RegistryCodeRepository,
    private readonly individualRepository: IndividualRepository,
    private readonly passwords: PasswordHasher,
  ) {}

  async createUser(input: CreateUserInput): Promise<User & { email: string }> {
    const email = input.email.trim();
    if (!EMAIL_PATTERN.test(email) || email.length > 255)
      throw ApiError.invalidField('email', 'must be an email address');
    if (input.password.length < 8) throw ApiError.invalidField('password', 'must be at least 8 characters');
    const orcid = input.orcid === undefined ? undefined : AccountsService.normaliseOrcid(input.orcid);
    const passwordHash = await this.passwords.hash(input.password);
    return this.dataSource.transaction(async (manager) => {
      if (await this.userRepository.existsBy(manager, { email })) {
        throw ApiError.conflict(`A user with email ${email} already exists.`, { email: ['already exists'] });
      }
      if (orcid && (await this.userRepository.existsBy(manager, { orcid }))) {
        throw ApiError.conflict(`A user with ORCID ${orcid} already exists.`, { orcid: ['already exists'] });
      }
      // No name given: the public label stays empty (the email's local part is not for publishing).
      const name = input.name?.trim() || null;
      const user = await this.insertAccount(manager, {
        email,
        passwordHash,
        name,
        orcid: orcid ?? null,
        uploadPermission: input.uploadPermission ?? false,
        isStaff: input.isStaff ?? false,
        isAdmin: input.isAdmin ?? false,
      });
      return user as User & { email: string };
    });
  }

  /** `https://orcid.org/0000-…` or the bare iD → the bare iD; anything else a 400 naming `orcid`. */
  static normaliseOrcid(value: string): string {
    const orcid = orcidId(value);
    if (orcid === null) throw ApiError.invalidField('orcid', 'must be an ORCID iD such as 0000-0002-1825-0097');
    return orcid;
  }

  /** The account row and its public identity (the linked individual, which is the user's to edit). */
  private async insertAccount(manager: EntityManager, account: NewAccount): Promise<User> {
    const name = account.name?.trim() || null;
    const [fname, ...rest] = name?.split(/\s+/) ?? [];
    const individual = await this.individualRepository.insert(manager, {
      label: name?.slice(0, 200) ?? null,
      fname: rest.length ? fname.slice(0, 100) : null,
      lname: rest.length ? rest.join(' ').slice(0, 100) : null,
      email: account.email,
      individualUri: account.orcid ? `${ORCID_RESOLVER}${account.orcid}` : null,
    });
    const user = await this.userRepository.insert(manager, {
      email: account.email,
      passwordHash: account.passwordHash,
      individualId: individual.id,
      orcid: account.orcid,
      uploadPermissionStatus: account.uploadPermission ? 1 : 0,
      isStaff: account.isStaff,
      isAdmin: account.isAdmin,
    });
    await this.individualRepository.update(manager, individual.id, { createdBy: user.id });
    return this.requireUser(user.id, manager);
  }

  /**
   * The account an ORCID sign-in stands for: the one linked to the iD (made by the CLI or by an
   * earlier sign-in), else a new one linked to it, without a password and without upload
   * permission. The new account takes the identity provider's verified email address only when no
   * other account has it: an address never moves an identity into someone else's account.
   * Concurrent first sign-ins with one iD make one account (the iD is unique; the loser reads it).
   */
  async signInWithOrcid(identity: OrcidIdentity): Promise<User> {
    const orcid = AccountsService.normaliseOrcid(identity.orcid);
    const existing = await this.userRepository.findByOrcid(orcid);
    if (existing) return existing;
    const email = identity.email?.trim();
    const usableEmail =
      email && EMAIL_PATTERN.test(email) && email.length <= 255 && !(await this.userRepository.findByEmail(email))
        ? email
        : null;
    try {
      return await this.dataSource.transaction((manager) =>
        this.insertAccount(manager, {
          email: usableEmail,
          passwordHash: null,
          name: identity.name ?? null,
          orcid,
          uploadPermission: false,
          isStaff: false,
          isAdmin: false,
        }),
      );
    } catch (error) {
      const raced = uniqueViolation(error) ? await this.userRepository.findByOrcid(orcid) : null;
      if (raced) return raced;
      if (uniqueViolation(error) && usableEmail) {
        // The address was taken meanwhile: the account is made without it.
        return this.signInWithOrcid({ ...identity, email: null });
      }
      throw error;
    }
  }

  /**
   * Links an ORCID iD to a signed-in account (someone who proved both identities in one browser
   * session). 409 when another account has the iD or this one has a different iD.
   */
  async linkOrcid(userId: number, orcidValue: string): Promise<User> {
    const orcid = AccountsService.normaliseOrcid(orcidValue);
    return this.dataSource.transaction(async (manager) => {
      const holder = await this.userRepository.findByOrcid(orcid, manager);
      if (holder && holder.id !== userId) {
        throw ApiError.conflict(`ORCID iD ${orcid} belongs to another account.`, { orcid: ['already linked'] });
      }
      if (!(await this.userRepository.linkOrcid(manager, userId, orcid))) {
        throw ApiError.conflict('This account is linked to a different ORCID iD.', { orcid: ['already linked'] });
      }
      return this.requireUser(userId, manager);
    });
  }

  /**
   * The active account these credentials sign in to, or undefined. Unknown addresses and accounts
   * without a password are compared against a dummy hash of the configured cost, so the answer takes
   * as long either way; a hash of another cost is replaced at a successful login.
   */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    const user = await this.findForLogin(email);
    if (!(await this.passwords.verify(password, user?.passwordHash)) || !user) return undefined;
    // The cost was changed since this hash was made: the password is known now, so the hash follows it.
    if (this.passwords.needsRehash(user.passwordHash)) {
      await this.userRepository.replacePasswordHash(user.id, user.passwordHash, await this.passwords.hash(password));
    }
    return user;
  }

  /** The account with its password hash, for login; undefined when unknown, inactive or without a password. */
  async findForLogin(email: string): Promise<(User & { email: string; passwordHash: string }) | undefined> {
    return sameAddress(await this.userRepository.findActiveWithPassword(email.trim()), email);
  }

  /** The account of an email address, compared as emailKey says (login and connections agree). */
  async findByEmail(email: string): Promise<User | undefined> {
    return sameAddress(await this.userRepository.findByEmail(email.trim()), email);
  }

  async findByOrcid(orcid: string): Promise<User | undefined> {
    return (await this.userRepository.findByOrcid(orcid)) ?? undefined;
  }

  async requireUser(id: number, manager?: EntityManager): Promise<User> {
    const user = await this.userRepository.findWithIndividual(id, manager);
    if (!user) throw ApiError.notFound('User not found.');
    return user;
  }

  /**
   * The account if it still exists and is active, for work done on its behalf later (a queued
   * batch). With `lock` (inside a transaction) the row is share-locked until it ends, so the
   * account cannot be deactivated before that work commits.
   */
  async activeUser(id: number, manager?: EntityManager, options: { lock?: boolean } = {}): Promise<User | undefined> {
    return (await this.userRepository.findActive(id, manager, options.lock)) ?? undefined;
  }

  /**
   * The account as a caller, for work a worker does on its behalf (exports, label sheets): as it is
   * now, permissions and teams included; undefined when it no longer exists or is inactive.
   */
  async actingUser(id: number): Promise<AuthenticatedUser | undefined> {
    const user = await this.activeUser(id);
    if (!user) return undefined;
    return {
      userId: user.id,
      email: user.email,
      isStaff: user.isStaff,
      isAdmin: user.isAdmin,
      uploadPermission: user.uploadPermissionStatus === 1,
      tokenPairId: '',
      tokenKind: 'session',
      connection: null,
    };
  }

  async createTeam(name: string): Promise<Team> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 100) throw ApiError.invalidField('name', 'must be 1-100 characters');
    return this.dataSource.transaction(async (manager) => {
      if (await this.teamRepository.existsByName(manager, trimmed)) {
        throw ApiError.conflict(`A team named ${trimmed} already exists.`, { name: ['already exists'] });
      }
      return this.teamRepository.insert(manager, trimmed);
    });
  }

  async requireTeamByName(name: string): Promise<Team> {
    const team = await this.teamRepository.findByName(name.trim());
    if (!team) throw ApiError.notFound(`No team named ${name}.`);
    return team;
  }

  /** A team by id (a whole number) or name; undefined when there is none. */
  async findTeam(idOrName: string | number): Promise<Team | undefined> {
    const team =
      typeof idOrName === 'number'
        ? await this.teamRepository.findById(idOrName)
        : await this.teamRepository.findByName(idOrName.trim());
    return team ?? undefined;
  }

  /** The ids of the team's managers (who act for the team, e.g. accept what is given to it). */
  async teamManagerIds(teamId: number, manager?: EntityManager): Promise<number[]> {
    return this.teamRepository.memberIds(teamId, 'manager', manager);
  }

  /** Adds a member or changes their role. */
  async addTeamMember(teamName: string, email: string, role: string): Promise<TeamMember> {
    if (!(TEAM_ROLES as readonly string[]).includes(role)) {
      throw ApiError.invalidField('role', `must be one of ${TEAM_ROLES.join(', ')}`);
    }
    const team = await this.requireTeamByName(teamName);
    const user = await this.findByEmail(email);
    if (!user) throw ApiError.notFound(`No user with email ${email}.`);
    await this.teamRepository.upsertMember({ teamId: team.id, userId: user.id, role: role as TeamRole });
    return { teamId: team.id, userId: user.id, role: role as TeamRole, team, user };
  }

  async teamMemberships(userId: number): Promise<TeamMembership[]> {
    const rows = await this.teamRepository.membershipsOf(userId);
    return rows.map((row) => ({ teamId: row.teamId, role: row.role }));
  }

  static normaliseRegistryCode(code: string): string {
    const upper = code.trim().toUpperCase();
    if (!REGISTRY_CODE_PATTERN.test(upper)) {
      throw ApiError.invalidField('code', 'must be IE followed by 3 letters or digits, or a legacy 3-character code');
    }
    return upper;
  }

  /**
   * Creates a registry code owned by exactly one user or team: the one rule behind the CLI's
   * `registry-code:create` and a curator's approval of a code request (in the caller's
   * transaction when given). 409 when the code exists or its namespace is taken.
   */
  async createRegistryCode(code: string, owner: RegistryCodeOwner, manager?: EntityManager): Promise<RegistryCode> {
    const normalised = AccountsService.normaliseRegistryCode(code);
    const userGiven = owner.email !== undefined || owner.userId !== undefined;
    const teamGiven = owner.team !== undefined || owner.teamId !== undefined;
    if (userGiven === teamGiven) {
      throw ApiError.badRequest('A registry code is owned by exactly one user (--owner-email) or one team (--team).');
    }
    let userOwnerId: number | null = null;
    let teamOwnerId: number | null = null;
    if (owner.userId !== undefined) {
      userOwnerId = (await this.requireUser(owner.userId, manager)).id;
    } else if (owner.email !== undefined) {
      const user = await this.findByEmail(owner.email);
      if (!user) throw ApiError.notFound(`No user with email ${owner.email}.`);
      userOwnerId = user.id;
    } else if (owner.teamId !== undefined) {
      teamOwnerId = owner.teamId;
    } else {
      teamOwnerId = (await this.requireTeamByName(owner.team ?? '')).id;
    }
    const inserted = await this.registryCodeRepository
      .insertUnlessExists({ code: normalised, userOwnerId, teamOwnerId }, manager)
      .catch((error: unknown) => {
        throw namespaceTaken(normalised, error) ?? error;
      });
    if (!inserted) {
      throw ApiError.conflict(`Registry code ${normalised} already exists.`, { code: ['already exists'] });
    }
    return this.registryCodeRepository.findOrFail(normalised, manager);
  }

  /** Whether a registry code of this name exists (upper-cased). */
  async registryCodeExists(code: string): Promise<boolean> {
    return (await this.registryCodeRepository.find(code.trim().toUpperCase())) !== null;
  }

  /** Gives the account upload permission, in the caller's transaction. */
  async grantUploadPermission(manager: EntityManager, userId: number): Promise<void> {
    await this.userRepository.grantUploadPermission(manager, userId);
  }

  /** These accounts with their public identity (name), by id; unknown ids are left out. */
  async usersByIds(ids: number[]): Promise<Map<number, User>> {
    const users = await this.userRepository.findManyWithIndividual([...new Set(ids)]);
    return new Map(users.map((user) => [user.id, user]));
  }

  /** These teams by id; unknown ids are left out. */
  async teamsByIds(ids: number[]): Promise<Map<number, Team>> {
    const teams = await this.teamRepository.findByIds([...new Set(ids)]);
    return new Map(teams.map((team) => [team.id, team]));
  }

  /** The user's current role in the team, or undefined. */
  async teamRole(userId: number, teamId: number): Promise<TeamRole | undefined> {
    return (await this.teamRepository.membershipsOf(userId)).find((member) => member.teamId === teamId)?.role;
  }

  /** The teams the user manages (who may ask for a code for a team), by name. */
  async managedTeams(userId: number): Promise<Team[]> {
    return this.teamRepository.managedBy(userId);
  }

  /** The code's owners, or undefined when no such code exists. */
  async registryCodeOwner(code: string, manager?: EntityManager): Promise<RegistryCode | undefined> {
    return (await this.registryCodeRepository.find(code.trim().toUpperCase(), manager)) ?? undefined;
  }

  /** Every registry code, in code order (OAI-PMH sets). */
  async allRegistryCodes(): Promise<string[]> {
    return this.registryCodeRepository.allCodes();
  }

  /** Which of these codes (upper-cased) no registry code has. */
  async unknownRegistryCodes(codes: string[]): Promise<string[]> {
    const wanted = codes.map((code) => code.trim().toUpperCase());
    const found = await this.registryCodeRepository.findMany(wanted);
    const known = new Set(found.map((row) => row.code));
    return wanted.filter((code) => !known.has(code));
  }

  /**
   * Longer codes that begin with this one (a legacy `IEA` and `IEABC`, `IEAXY`): their namespaces
   * lie inside this code's, and belong to them.
   */
  async codesExtending(code: string, manager?: EntityManager): Promise<string[]> {
    return this.registryCodeRepository.codesExtending(code, manager);
  }

  /**
   * Whether the user may register under the code: they own it, or a team they edit or manage owns it.
   * Staff and admins may use any existing code.
   */
  async canUseRegistryCode(
    user: { userId: number; isStaff: boolean; isAdmin: boolean },
    code: string,
    manager?: EntityManager,
  ): Promise<boolean> {
    return this.registryCodeRepository.usableBy(
      code.trim().toUpperCase(),
      user.userId,
      user.isStaff || user.isAdmin,
      manager,
    );
  }

  /**
   * The same question as registryCodeOwner and canUseRegistryCode together, as a lookup a statement
   * asks beside others: the code and its owning team when it exists and the user may register under
   * it; undefined otherwise (then those two say which, and why).
   */
  usableRegistryCodeLookup(
    user: { userId: number; isStaff: boolean; isAdmin: boolean },
    code: string,
  ): SqlLookup<{ code: string; teamOwnerId: number | null }> {
    return {
      expression: this.registryCodeRepository.usableSql(
        code.trim().toUpperCase(),
        user.userId,
        user.isStaff || user.isAdmin,
      ),
      read: (answer) => {
        const row = answer as { code: string; team_owner_id: number | null } | null;
        return row ? { code: row.code, teamOwnerId: row.team_owner_id } : undefined;
      },
    };
  }

  /**
   * The registry codes a user holds and what each lets them do with its samples (owner, team editor
   * and manager: create, edit, view; team viewer: view). With `permission`, only the codes that give
   * it; staff and admins hold every code that way (they may register, edit and view under any).
   */
  async registryCodesHeld(
    user: { userId: number; isStaff: boolean; isAdmin: boolean },
    permission?: SamplePermission,
  ): Promise<RegistryCodeAccessDto[]> {
    const rows = await this.registryCodeRepository.heldBy(
      user.userId,
      permission !== undefined && (user.isStaff || user.isAdmin),
    );
    const held = rows.map((row): RegistryCodeAccessDto => {
      const role = row.role as RegistryCodeRole;
      return {
        code: row.code,
        sesar_code: row.code,
        role,
        team: row.team_id === null ? null : { id: row.team_id, name: row.team_name ?? '' },
        permissions: role === 'viewer' ? ['view_sample'] : [...SAMPLE_PERMISSIONS],
      };
    });
    return permission === undefined ? held : held.filter((code) => code.permissions.includes(permission));
  }

  /** Registry codes the user may register under, in code order. */
  async usableRegistryCodes(userId: number, manager?: EntityManager): Promise<string[]> {
    return this.registryCodeRepository.usableCodes(userId, manager);
  }
}
