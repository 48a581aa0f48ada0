import { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, teams, registry codes, token pairs and integration connections. */
export class AccountsAndAuth1763800200000 implements MigrationInterface {
  name = 'AccountsAndAuth1763800200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE registry_user (
        id serial PRIMARY KEY,
        email citext NOT NULL UNIQUE,
        password_hash varchar(100) NOT NULL,
        individual_id integer REFERENCES individual(id) ON DELETE SET NULL,
        orcid varchar(19) UNIQUE,
        upload_permission_status integer,
        is_staff boolean NOT NULL DEFAULT false,
        is_admin boolean NOT NULL DEFAULT false,
        is_active boolean NOT NULL DEFAULT true,
        storage_used bigint NOT NULL DEFAULT 0,
        storage_limit bigint NOT NULL DEFAULT 10737418240,
        notification_preferences jsonb NOT NULL DEFAULT '{}',
        registration_date timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE team (
        id serial PRIMARY KEY,
        name citext NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE team_member (
        team_id integer NOT NULL REFERENCES team(id) ON DELETE CASCADE,
        user_id integer NOT NULL REFERENCES registry_user(id) ON DELETE CASCADE,
        role varchar(10) NOT NULL CHECK (role IN ('viewer', 'editor', 'manager')),
        PRIMARY KEY (team_id, user_id)
      )`);
    await queryRunner.query('CREATE INDEX idx_team_member_user ON team_member (user_id)');
    await queryRunner.query(`
      CREATE TABLE registry_code (
        code varchar(5) PRIMARY KEY CHECK (code ~ '^(IE[A-Z0-9]{3}|[A-Z0-9]{3})$'),
        user_owner_id integer REFERENCES registry_user(id) ON DELETE RESTRICT,
        team_owner_id integer REFERENCES team(id) ON DELETE RESTRICT,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((user_owner_id IS NULL) <> (team_owner_id IS NULL))
      )`);
    await queryRunner.query(`
      CREATE TABLE token_pair (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL,
        user_id integer NOT NULL REFERENCES registry_user(id) ON DELETE CASCADE,
        kind varchar(12) NOT NULL CHECK (kind IN ('session', 'developer', 'connection')),
        connection_name varchar(100),
        generation integer NOT NULL DEFAULT 1,
        refresh_jti uuid NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        last_used_at timestamptz,
        revoked_at timestamptz,
        revoked_reason varchar(40)
      )`);
    await queryRunner.query('CREATE INDEX idx_token_pair_user_kind ON token_pair (user_id, kind)');
    await queryRunner.query(`
      CREATE TABLE auth_connection (
        id serial PRIMARY KEY,
        name varchar(100) NOT NULL UNIQUE,
        issuer varchar(500) NOT NULL,
        audience varchar(500) NOT NULL,
        jwks_url varchar(1000),
        public_key text,
        secret varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (num_nonnulls(jwks_url, public_key, secret) = 1)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['auth_connection', 'token_pair', 'registry_code', 'team_member', 'team', 'registry_user']) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
