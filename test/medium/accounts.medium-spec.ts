import { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { runCli } from '../../src/cli/commands';
import { ApiError } from '../../src/core/http/api-error';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { TestUser, createUserWithToken, uniqueRegistryCode } from '../support/auth';
import { createMediumContext } from '../support/medium';
import { testConfig } from '../support/test-environment';

/** What an ApiError a promise rejects with says: status and body. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string; errors: object }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  const body = (error as ApiError).getResponse() as { message: string; errors: object };
  return { status: (error as ApiError).getStatus(), ...body };
}

/** Accounts, teams and registry codes (AccountsService on the real database): the rules the CLI and the API share. */
describe('accounts, teams and registry codes', () => {
  let app: INestApplicationContext;
  let db: DataSource;
  let accounts: AccountsService;
  let holder: TestUser;

  beforeAll(async () => {
    app = await createMediumContext();
    db = app.get(DataSource);
    accounts = app.get(AccountsService);
    holder = await createUserWithToken(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const codeExists = async (code: string) =>
    (await db.query('SELECT 1 FROM registry_code WHERE code = $1', [code])).length > 0;

  it('creates a code in upper case for exactly one owner; a second time is a 409', async () => {
    const code = uniqueRegistryCode();
    const created = await accounts.createRegistryCode(` ${code.toLowerCase()} `, { email: holder.email });
    expect(created).toMatchObject({ code, userOwnerId: holder.userId, teamOwnerId: null });
    expect(await refusal(accounts.createRegistryCode(code, { email: holder.email }))).toMatchObject({
      status: 409,
      errors: { code: ['already exists'] },
    });
    expect((await refusal(accounts.createRegistryCode(uniqueRegistryCode(), {}))).status).toBe(400);
    expect((await refusal(accounts.createRegistryCode('IE1234', { email: holder.email }))).errors).toEqual({
      code: ['must be IE followed by 3 letters or digits, or a legacy 3-character code'],
    });
  });

  it('lets the editors and managers of a team use its code, not its viewers; staff use any code', async () => {
    const team = `team-${randomUUID().slice(0, 8)}`;
    await accounts.createTeam(team);
    const code = uniqueRegistryCode();
    await accounts.createRegistryCode(code, { team });
    const member = await createUserWithToken(app);
    const who = { userId: member.userId, isStaff: false, isAdmin: false };
    expect(await accounts.canUseRegistryCode(who, code)).toBe(false);
    for (const [role, allowed] of [
      ['viewer', false],
      ['editor', true],
      ['manager', true],
      ['viewer', false],
    ] as const) {
      await accounts.addTeamMember(team, member.email, role);
      expect(await accounts.canUseRegistryCode(who, code)).toBe(allowed);
    }
    expect(await accounts.canUseRegistryCode({ ...who, isStaff: true }, code)).toBe(true);
    expect((await refusal(accounts.addTeamMember(team, member.email, 'owner'))).status).toBe(400);
    expect((await refusal(accounts.createTeam(team))).status).toBe(409);
  });

  describe('a new registry code inside a used namespace', () => {
    let short: string;

    beforeAll(async () => {
      // IE + one character: a legacy code whose namespace holds those of IE + 3 characters.
      for (const char of [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'].sort(() => Math.random() - 0.5)) {
        try {
          await accounts.createRegistryCode(`IE${char}`, { email: holder.email });
          short = `IE${char}`;
          break;
        } catch (error) {
          if ((error as { getStatus?: () => number }).getStatus?.() !== 409) throw error;
        }
      }
      expect(short).toBeDefined();
    });

    const freeLonger = async (): Promise<string> => {
      for (;;) {
        const candidate = `${short}${randomUUID().slice(0, 2).toUpperCase()}`;
        if (!(await codeExists(candidate))) return candidate;
      }
    };

    it('is refused with 409 naming the code, how many IGSNs and the first (service and CLI)', async () => {
      const longer = await freeLonger();
      // Two samples of the short code whose IGSNs begin with the longer code.
      for (const suffix of ['0002', '0001']) {
        await db.query(
          `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, user_owner_id)
           SELECT $1, $2, $3, id, 'draft', $4 FROM object_type WHERE label = 'Core' LIMIT 1`,
          [`${longer}${suffix}`, short, `namespace-${suffix}`, holder.userId],
        );
      }

      const refused = await refusal(accounts.createRegistryCode(longer, { email: holder.email }));
      expect(refused.status).toBe(409);
      expect(refused.message).toContain(`Registry code ${longer}`);
      expect(refused.message).toContain('2 IGSNs');
      expect(refused.message).toContain(`first ${longer}0001`);
      expect(Object.keys(refused.errors)).toEqual(['code']);
      expect(await codeExists(longer)).toBe(false);

      const out: string[] = [];
      const err: string[] = [];
      const exit = await runCli(
        ['registry-code:create', '--code', longer.toLowerCase(), '--owner-email', holder.email],
        testConfig(),
        { stdout: (line) => out.push(line), stderr: (line) => err.push(line) },
      );
      expect({ exit, out }).toEqual({ exit: 1, out: [] });
      expect(err.join('\n')).toContain(`Registry code ${longer} cannot be created: 2 IGSNs`);
      expect(await codeExists(longer)).toBe(false);

      // The IGSNs keep their code; a longer code over an empty namespace is still created.
      const stored = await db.query('SELECT DISTINCT registry_code FROM sample WHERE igsn LIKE $1', [`${longer}%`]);
      expect(stored).toEqual([{ registry_code: short }]);
      const empty = await freeLonger();
      await accounts.createRegistryCode(empty, { email: holder.email });
      expect(await codeExists(empty)).toBe(true);
    });
  });
});
