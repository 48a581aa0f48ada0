import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * External sample ids (issue 20 §1, branch sesar2-writes): a client's own id for a sample, unique
 * among the active samples of one user owner, so a second registration with the same id is a 409
 * naming the first (the index decides under concurrency). Deactivated samples free their id.
 */
export class Sesar2WritesExternalSampleId1795700100001 implements MigrationInterface {
  name = 'Sesar2WritesExternalSampleId1795700100001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sample ADD COLUMN external_sample_id varchar(255)');
    await queryRunner.query(`
      CREATE UNIQUE INDEX uq_sample_owner_external_id ON sample (user_owner_id, external_sample_id)
        WHERE external_sample_id IS NOT NULL AND NOT is_deactivated`);
    // The search filter ?external_sample_id= across owners (public scope).
    await queryRunner.query(
      'CREATE INDEX idx_sample_external_id ON sample (external_sample_id) WHERE external_sample_id IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_sample_external_id');
    await queryRunner.query('DROP INDEX uq_sample_owner_external_id');
    await queryRunner.query('ALTER TABLE sample DROP COLUMN external_sample_id');
  }
}
