import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the sample search filters of issue 13, so that a selective filter starts from an
 * index rather than reading every sample: registry code (in newest-first order, like the owner
 * indexes), collector (sample_collector by collector, collector by person), coordinates (a box is
 * a range on one coordinate, the other checked in the index), the sampling period (GiST on the
 * range from start to end date, for overlap) and other names (trigram, for `q`). Parent and
 * creation date already have theirs (idx_sample_parent, idx_sample_newest).
 */
export class SampleSearchFilters1763903000000 implements MigrationInterface {
  name = 'SampleSearchFilters1763903000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX idx_sample_registry_code ON sample (registry_code, created_at DESC, id DESC)',
    );
    await queryRunner.query(
      'CREATE INDEX idx_sample_collector_collector ON sample_collector (collector_id, sample_id)',
    );
    await queryRunner.query(
      'CREATE INDEX idx_collector_individual ON collector (individual_id) WHERE individual_id IS NOT NULL',
    );
    await queryRunner.query(`
      CREATE INDEX idx_sample_latitude ON sample (latitude, longitude)
        WHERE latitude IS NOT NULL AND longitude IS NOT NULL`);
    await queryRunner.query(`
      CREATE INDEX idx_sample_longitude ON sample (longitude, latitude)
        WHERE latitude IS NOT NULL AND longitude IS NOT NULL`);
    await queryRunner.query(`
      CREATE INDEX idx_sample_sampling_period ON sample USING gist (
        tstzrange(least(sampling_start_date, sampling_end_date), greatest(sampling_start_date, sampling_end_date), '[]'))
        WHERE COALESCE(sampling_start_date, sampling_end_date) IS NOT NULL`);
    // array_to_string() is only STABLE (it calls the element type's output function); for text[]
    // the result depends on the array alone, so this wrapper may be IMMUTABLE and indexed.
    await queryRunner.query(`
      CREATE FUNCTION sample_other_names_text(text[]) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT lower(array_to_string($1, E'\\n')) $$`);
    await queryRunner.query(
      'CREATE INDEX idx_sample_other_names_trgm ON sample USING gin (sample_other_names_text(other_names) gin_trgm_ops)',
    );
    // As for names (SampleSearchStatistics): estimates of rare and common terms alike hold.
    await queryRunner.query('ALTER INDEX idx_sample_other_names_trgm ALTER COLUMN 1 SET STATISTICS 1000');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_sample_other_names_trgm');
    await queryRunner.query('DROP FUNCTION sample_other_names_text(text[])');
    for (const index of [
      'idx_sample_sampling_period',
      'idx_sample_longitude',
      'idx_sample_latitude',
      'idx_collector_individual',
      'idx_sample_collector_collector',
      'idx_sample_registry_code',
    ]) {
      await queryRunner.query(`DROP INDEX ${index}`);
    }
  }
}
