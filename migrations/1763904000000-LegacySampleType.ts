import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SESAR 1.0 sample type (and subtype) a legacy XML client sent, kept next to the object type it
 * was mapped to (issue 13). Nullable and without a default: adding it rewrites nothing.
 */
export class LegacySampleType1763904000000 implements MigrationInterface {
  name = 'LegacySampleType1763904000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sample ADD COLUMN legacy_sample_type varchar(512)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sample DROP COLUMN legacy_sample_type');
  }
}
