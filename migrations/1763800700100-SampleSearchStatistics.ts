import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Finer statistics for substring search on sample names. With the default 100-entry histogram the
 * planner misjudged `lower(name) LIKE '%kae%'` by 250× (101 rows estimated, 25,307 found) and chose
 * to collect and sort every match instead of walking the newest-first index; with 1,000 entries its
 * estimates of common and rare terms alike hold (bench/samples). Search counts use these estimates
 * beyond the exact-count limit, so they matter for the answer as well as for the plan.
 */
export class SampleSearchStatistics1763800700100 implements MigrationInterface {
  name = 'SampleSearchStatistics1763800700100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER INDEX idx_sample_name_trgm ALTER COLUMN 1 SET STATISTICS 1000');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER INDEX idx_sample_name_trgm ALTER COLUMN 1 SET STATISTICS -1');
  }
}
