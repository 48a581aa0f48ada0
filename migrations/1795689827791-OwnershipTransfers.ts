import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ownership transfers (issue 26 §3): a transfer offers a set of samples, fixed when it is made
 * (ownership_transfer_sample), to a user or a team; accepting it moves them, and each move is a row
 * of the sample's history. Large acceptances run as `ownership_transfer` jobs.
 */
export class OwnershipTransfers1795689827791 implements MigrationInterface {
  name = 'OwnershipTransfers1795689827791';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ownership_transfer (
        id serial PRIMARY KEY,
        status varchar(16) NOT NULL CHECK (status IN ('pending', 'accepting', 'accepted', 'rejected', 'cancelled')),
        from_user_id integer NOT NULL REFERENCES registry_user(id),
        to_user_id integer REFERENCES registry_user(id),
        to_team_id integer REFERENCES team(id),
        selection jsonb NOT NULL,
        message text,
        sample_count integer NOT NULL,
        direct boolean NOT NULL DEFAULT false,
        created_by integer NOT NULL REFERENCES registry_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        decided_by integer REFERENCES registry_user(id),
        decided_at timestamptz,
        decision_message text,
        job_id uuid,
        moved_count integer,
        skipped_count integer,
        CHECK ((to_user_id IS NULL) <> (to_team_id IS NULL))
      )`);
    await queryRunner.query('CREATE INDEX idx_ownership_transfer_from ON ownership_transfer (from_user_id, id)');
    await queryRunner.query('CREATE INDEX idx_ownership_transfer_to_user ON ownership_transfer (to_user_id, id)');
    await queryRunner.query('CREATE INDEX idx_ownership_transfer_to_team ON ownership_transfer (to_team_id, id)');
    await queryRunner.query(`
      CREATE TABLE ownership_transfer_sample (
        transfer_id integer NOT NULL REFERENCES ownership_transfer(id) ON DELETE CASCADE,
        sample_id bigint NOT NULL REFERENCES sample(id),
        PRIMARY KEY (transfer_id, sample_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE sample_history (
        id bigserial PRIMARY KEY,
        sample_id bigint NOT NULL REFERENCES sample(id),
        event varchar(32) NOT NULL,
        actor_id integer REFERENCES registry_user(id),
        detail jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX idx_sample_history_sample ON sample_history (sample_id, id)');
    await queryRunner.query('ALTER TABLE background_job DROP CONSTRAINT background_job_job_type_check');
    await queryRunner.query(`
      ALTER TABLE background_job ADD CONSTRAINT background_job_job_type_check
        CHECK (job_type IN ('batch_registration', 'sample_export', 'label_sheet', 'ownership_transfer'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM background_job WHERE job_type = 'ownership_transfer'");
    await queryRunner.query('ALTER TABLE background_job DROP CONSTRAINT background_job_job_type_check');
    await queryRunner.query(`
      ALTER TABLE background_job ADD CONSTRAINT background_job_job_type_check
        CHECK (job_type IN ('batch_registration', 'sample_export', 'label_sheet'))`);
    await queryRunner.query('DROP TABLE sample_history');
    await queryRunner.query('DROP TABLE ownership_transfer_sample');
    await queryRunner.query('DROP TABLE ownership_transfer');
  }
}
