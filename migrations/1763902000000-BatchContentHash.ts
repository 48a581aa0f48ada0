import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `batch_history.content_sha256`: the SHA-256 of the uploaded workbook, so the same file uploaded
 * again by the same user is recognised (409 unless `allow_duplicate=true`). Batches uploaded before
 * have none and match nothing.
 */
export class BatchContentHash1763902000000 implements MigrationInterface {
  name = 'BatchContentHash1763902000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE batch_history ADD COLUMN content_sha256 char(64)');
    await queryRunner.query(
      'CREATE INDEX ix_batch_history_uploader_content ON batch_history (uploaded_by_id, content_sha256) WHERE content_sha256 IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX ix_batch_history_uploader_content');
    await queryRunner.query('ALTER TABLE batch_history DROP COLUMN content_sha256');
  }
}
