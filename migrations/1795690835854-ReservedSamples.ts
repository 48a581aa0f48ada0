import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reserved samples (issue 26 §1): IGSNs minted before fieldwork, owned, never public, completed
 * later. A new store status `reserved`, the only one allowed to lack an object type; large
 * reservations run as `sample_reservation` jobs.
 */
export class ReservedSamples1795690835854 implements MigrationInterface {
  name = 'ReservedSamples1795690835854';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sample DROP CONSTRAINT sample_metadata_store_status_check');
    await queryRunner.query(`
      ALTER TABLE sample ADD CONSTRAINT sample_metadata_store_status_check
        CHECK (metadata_store_status IN ('reserved', 'draft', 'pending-review', 'published'))`);
    await queryRunner.query('ALTER TABLE sample ALTER COLUMN object_type_id DROP NOT NULL');
    await queryRunner.query(`
      ALTER TABLE sample ADD CONSTRAINT sample_object_type_unless_reserved
        CHECK (object_type_id IS NOT NULL OR metadata_store_status = 'reserved')`);
    await queryRunner.query('ALTER TABLE background_job DROP CONSTRAINT background_job_job_type_check');
    await queryRunner.query(`
      ALTER TABLE background_job ADD CONSTRAINT background_job_job_type_check
        CHECK (job_type IN ('batch_registration', 'sample_export', 'label_sheet', 'ownership_transfer',
                            'sample_reservation'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM background_job WHERE job_type = 'sample_reservation'");
    await queryRunner.query('ALTER TABLE background_job DROP CONSTRAINT background_job_job_type_check');
    await queryRunner.query(`
      ALTER TABLE background_job ADD CONSTRAINT background_job_job_type_check
        CHECK (job_type IN ('batch_registration', 'sample_export', 'label_sheet', 'ownership_transfer'))`);
    // Reserved samples cannot be expressed in the old schema; they must be completed or removed first.
    await queryRunner.query('ALTER TABLE sample DROP CONSTRAINT sample_object_type_unless_reserved');
    await queryRunner.query('ALTER TABLE sample ALTER COLUMN object_type_id SET NOT NULL');
    await queryRunner.query('ALTER TABLE sample DROP CONSTRAINT sample_metadata_store_status_check');
    await queryRunner.query(`
      ALTER TABLE sample ADD CONSTRAINT sample_metadata_store_status_check
        CHECK (metadata_store_status IN ('draft', 'pending-review', 'published'))`);
  }
}
