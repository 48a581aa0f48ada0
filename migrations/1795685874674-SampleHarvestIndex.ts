import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAI-PMH harvests page through published samples in (datestamp, id) order, where the datestamp is
 * GREATEST(updated_at, publish_date) (SampleHarvestRepository): this index serves every page, and
 * `from`/`until`, as one range scan. Partial: drafts and samples pending review are never harvested.
 * A plain CREATE INDEX: on a large installation it holds writes to `sample` while it builds.
 */
export class SampleHarvestIndex1795685874674 implements MigrationInterface {
  name = 'SampleHarvestIndex1795685874674';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX idx_sample_harvest ON sample ((GREATEST(updated_at, publish_date)), id)
       WHERE metadata_store_status = 'published'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_sample_harvest');
  }
}
