import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - `background_job.idempotency_key`: a client's `Idempotency-Key` header, unique per user, so a
 *   retried upload or export request returns the first job instead of creating another.
 * - `stored_file.quota_charged`: the file's size was added to its owner's `storage_used` (exports)
 *   and is given back when the file expires.
 */
export class Resilience1763800700200 implements MigrationInterface {
  name = 'Resilience1763800700200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE background_job ADD COLUMN idempotency_key varchar(255)');
    await queryRunner.query(
      'CREATE UNIQUE INDEX uq_background_job_idempotency ON background_job (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL',
    );
    await queryRunner.query('ALTER TABLE stored_file ADD COLUMN quota_charged boolean NOT NULL DEFAULT false');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE stored_file DROP COLUMN quota_charged');
    await queryRunner.query('DROP INDEX uq_background_job_idempotency');
    await queryRunner.query('ALTER TABLE background_job DROP COLUMN idempotency_key');
  }
}
