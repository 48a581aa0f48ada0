import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The 1,000-entry statistics of `lower(name)` again (SampleSearchStatistics1763800700100). Changing
 * `name` to `text` (SampleTextColumnWidths1795700400000) re-created the indexes on it, and a
 * re-created index loses its columns' statistics targets: the planner was back to a 100-entry
 * histogram and took common `q` terms (`kae`, `ilau`: ~25,000 names in 1,000,000) for 164 rows, so
 * it collected and sorted every match instead of walking the newest-first index (issue 23 §6).
 * ANALYZE reads a sample of at most 300,000 rows whatever the table's size (its largest target is
 * already 1,000), so the finer histogram is there from the start, not at the next ANALYZE. Outside a
 * transaction: an ANALYZE in the transaction that set the target still uses the old one.
 */
export class SampleNameStatisticsRestored1795700500000 implements MigrationInterface {
  name = 'SampleNameStatisticsRestored1795700500000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER INDEX idx_sample_name_trgm ALTER COLUMN 1 SET STATISTICS 1000');
    await queryRunner.query('ANALYZE sample');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER INDEX idx_sample_name_trgm ALTER COLUMN 1 SET STATISTICS -1');
  }
}
