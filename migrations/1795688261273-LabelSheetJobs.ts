import { MigrationInterface, QueryRunner } from 'typeorm';

/** Label sheets (issue 26) are background jobs of their own kind: `label_sheet`. */
export class LabelSheetJobs1795688261273 implements MigrationInterface {
  name = 'LabelSheetJobs1795688261273';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE background_job DROP CONSTRAINT background_job_job_type_check');
    await queryRunner.query(`
      ALTER TABLE background_job ADD CONSTRAINT background_job_job_type_check
        CHECK (job_type IN ('batch_registration', 'sample_export', 'label_sheet'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM background_job WHERE job_type = 'label_sheet'");
    await queryRunner.query('ALTER TABLE background_job DROP CONSTRAINT background_job_job_type_check');
    await queryRunner.query(`
      ALTER TABLE background_job ADD CONSTRAINT background_job_job_type_check
        CHECK (job_type IN ('batch_registration', 'sample_export'))`);
  }
}
