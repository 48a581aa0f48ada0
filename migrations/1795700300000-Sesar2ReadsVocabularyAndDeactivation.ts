import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SESAR2 clients (issue 20 §2–§4): material types say whether new samples may use them
 * (`for_registration`); a `duplicate igsn` deactivation keeps the IGSNs it names; searches may be
 * ordered by name or last update, each walked on its own index with the id as tie-breaker.
 *
 * The reference's page of deprecated terms lists none for material types, so the terms retired here
 * are the registry's decision (docs/integrations/sesar2-clients.md): the two `Liquid>…` terms, the
 * last compound `parent>child` labels of the SESAR 1.0 list, kept for migrated samples and legacy XML.
 */
const RETIRED_MATERIAL_TYPES = ['Liquid>aqueous', 'Liquid>organic'];

export class Sesar2ReadsVocabularyAndDeactivation1795700300000 implements MigrationInterface {
  name = 'Sesar2ReadsVocabularyAndDeactivation1795700300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE material_type ADD COLUMN for_registration boolean NOT NULL DEFAULT true');
    await queryRunner.query('UPDATE material_type SET for_registration = false WHERE label = ANY($1::text[])', [
      RETIRED_MATERIAL_TYPES,
    ]);
    await queryRunner.query('ALTER TABLE sample ADD COLUMN deactivate_duplicate_igsns text[]');
    await queryRunner.query('CREATE INDEX idx_sample_name_order ON sample (name, id)');
    await queryRunner.query('CREATE INDEX idx_sample_last_update ON sample (updated_at, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_sample_last_update');
    await queryRunner.query('DROP INDEX idx_sample_name_order');
    await queryRunner.query('ALTER TABLE sample DROP COLUMN deactivate_duplicate_igsns');
    await queryRunner.query('ALTER TABLE material_type DROP COLUMN for_registration');
  }
}
