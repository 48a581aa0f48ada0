import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Background jobs, stored files (uploads, error reports, exports: in PostgreSQL so any API
 * replica or worker can read what another wrote), batch history and batch templates.
 */
export class JobsFilesBatches1763800500000 implements MigrationInterface {
  name = 'JobsFilesBatches1763800500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE stored_file (
        id uuid PRIMARY KEY,
        filename varchar(255) NOT NULL,
        content_type varchar(255) NOT NULL,
        size_bytes bigint NOT NULL,
        content bytea NOT NULL,
        owner_user_id integer REFERENCES registry_user(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`);
    await queryRunner.query(
      'CREATE INDEX idx_stored_file_expires ON stored_file (expires_at) WHERE expires_at IS NOT NULL',
    );
    await queryRunner.query(`
      CREATE TABLE background_job (
        id uuid PRIMARY KEY,
        job_type varchar(32) NOT NULL CHECK (job_type IN ('batch_registration', 'sample_export')),
        status varchar(16) NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
        payload jsonb NOT NULL DEFAULT '{}',
        result jsonb,
        error_message text,
        total_count integer,
        processed_count integer NOT NULL DEFAULT 0,
        user_id integer NOT NULL REFERENCES registry_user(id) ON DELETE CASCADE,
        result_file_id uuid REFERENCES stored_file(id) ON DELETE SET NULL,
        cancel_requested boolean NOT NULL DEFAULT false,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX idx_background_job_user ON background_job (user_id, created_at DESC)');
    await queryRunner.query(
      "CREATE INDEX idx_background_job_open ON background_job (created_at) WHERE status IN ('pending', 'processing')",
    );
    await queryRunner.query(`
      CREATE TABLE batch_template (
        id serial PRIMARY KEY,
        label varchar(255) NOT NULL,
        registry_code varchar(5) REFERENCES registry_code(code),
        object_type_id integer REFERENCES object_type(id),
        user_owner_id integer REFERENCES registry_user(id) ON DELETE SET NULL,
        team_owner_id integer REFERENCES team(id) ON DELETE SET NULL,
        created_by integer REFERENCES registry_user(id) ON DELETE SET NULL,
        created_date timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        is_archived boolean NOT NULL DEFAULT false,
        version integer NOT NULL DEFAULT 1,
        selected_fields jsonb NOT NULL DEFAULT '[]',
        cruise_field_prgrms jsonb NOT NULL DEFAULT '[]',
        platforms jsonb NOT NULL DEFAULT '[]',
        launch_platforms jsonb NOT NULL DEFAULT '[]',
        current_archives jsonb NOT NULL DEFAULT '[]',
        original_archives jsonb NOT NULL DEFAULT '[]',
        collectors jsonb NOT NULL DEFAULT '[]'
      )`);
    await queryRunner.query('CREATE INDEX idx_batch_template_owner ON batch_template (user_owner_id)');
    await queryRunner.query(`
      CREATE TABLE batch_history (
        id serial PRIMARY KEY,
        batch_type varchar(32) NOT NULL DEFAULT 'registration',
        registry_code varchar(5),
        sample_count integer,
        upload_time timestamptz NOT NULL DEFAULT now(),
        processed_time timestamptz,
        filename varchar(255),
        object_type varchar(255),
        save_as_draft boolean NOT NULL DEFAULT false,
        uploaded_by_id integer REFERENCES registry_user(id) ON DELETE SET NULL,
        user_owner_id integer REFERENCES registry_user(id) ON DELETE SET NULL,
        team_owner_id integer REFERENCES team(id) ON DELETE SET NULL,
        template_id integer REFERENCES batch_template(id) ON DELETE SET NULL,
        file_id uuid REFERENCES stored_file(id) ON DELETE SET NULL,
        job_id uuid REFERENCES background_job(id) ON DELETE SET NULL
      )`);
    await queryRunner.query('CREATE INDEX idx_batch_history_owner ON batch_history (user_owner_id, upload_time DESC)');
    await queryRunner.query('CREATE INDEX idx_batch_history_team ON batch_history (team_owner_id, upload_time DESC)');
    await queryRunner.query(
      'ALTER TABLE sample ADD CONSTRAINT fk_sample_batch FOREIGN KEY (batch_id) REFERENCES batch_history(id) ON DELETE SET NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sample DROP CONSTRAINT fk_sample_batch');
    for (const table of ['batch_history', 'batch_template', 'background_job', 'stored_file']) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
