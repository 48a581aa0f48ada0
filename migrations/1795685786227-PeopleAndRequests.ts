import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People, not only programs (issue 25):
 * - an account made by signing in with ORCID has no password, and no email address unless the
 *   identity provider gave a verified one (the specification's RegistryUser.email is nullable);
 * - a token pair records where it was issued (`origin`), so a user can tell their sessions apart;
 * - requests a curator decides (upload permission, a registry code) in one table: at most one
 *   pending upload-permission request per user and one pending request per code, enforced here so
 *   concurrent submissions cannot both pass.
 */
export class PeopleAndRequests1795685786227 implements MigrationInterface {
  name = 'PeopleAndRequests1795685786227';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE registry_user ALTER COLUMN email DROP NOT NULL');
    await queryRunner.query('ALTER TABLE registry_user ALTER COLUMN password_hash DROP NOT NULL');
    await queryRunner.query(`
      ALTER TABLE token_pair ADD COLUMN origin varchar(20)
        CHECK (origin IN ('api', 'browser-password', 'browser-orcid', 'cli'))`);
    await queryRunner.query(`
      CREATE TABLE account_request (
        id serial PRIMARY KEY,
        kind varchar(20) NOT NULL CHECK (kind IN ('upload_permission', 'registry_code')),
        user_id integer NOT NULL REFERENCES registry_user(id) ON DELETE CASCADE,
        status varchar(10) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'refused')),
        reason text NOT NULL,
        code varchar(5) CHECK (code ~ '^(IE[A-Z0-9]{3}|[A-Z0-9]{3})$'),
        team_id integer REFERENCES team(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        decided_at timestamptz,
        decided_by integer REFERENCES registry_user(id) ON DELETE SET NULL,
        decision_message text,
        CHECK ((kind = 'registry_code') = (code IS NOT NULL)),
        CHECK (kind = 'registry_code' OR team_id IS NULL),
        CHECK ((status = 'pending') = (decided_at IS NULL))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX uq_account_request_pending_permission ON account_request (user_id)
        WHERE kind = 'upload_permission' AND status = 'pending'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX uq_account_request_pending_code ON account_request (code)
        WHERE kind = 'registry_code' AND status = 'pending'`,
    );
    await queryRunner.query('CREATE INDEX idx_account_request_status ON account_request (status, created_at, id)');
    await queryRunner.query(
      'CREATE INDEX idx_account_request_user ON account_request (user_id, created_at DESC, id DESC)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE account_request');
    await queryRunner.query('ALTER TABLE token_pair DROP COLUMN origin');
    // Fails while accounts without an email or a password exist: they are not deleted to go back.
    await queryRunner.query('ALTER TABLE registry_user ALTER COLUMN password_hash SET NOT NULL');
    await queryRunner.query('ALTER TABLE registry_user ALTER COLUMN email SET NOT NULL');
  }
}
