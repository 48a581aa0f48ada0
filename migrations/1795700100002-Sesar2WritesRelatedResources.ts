import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Related resources as SESAR2 models them (issue 20 §1, branch sesar2-writes): objects with their
 * own ids (a paper, a data set, an image), created once and linked to many samples. A sample's
 * inline `related_resources` (jsonb) stay as they are; the links live beside them.
 */
export class Sesar2WritesRelatedResources1795700100002 implements MigrationInterface {
  name = 'Sesar2WritesRelatedResources1795700100002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE related_resource (
        id serial PRIMARY KEY,
        label varchar(255) NOT NULL,
        related_resource_type varchar(20) NOT NULL,
        uri varchar(2000) NOT NULL,
        uri_type varchar(20) NOT NULL,
        description text,
        created_by integer REFERENCES registry_user(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      'CREATE INDEX idx_related_resource_creator ON related_resource (created_by, created_at DESC, id DESC)',
    );
    await queryRunner.query(`
      CREATE TABLE sample_related_resource (
        sample_id bigint NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
        related_resource_id integer NOT NULL REFERENCES related_resource(id) ON DELETE CASCADE,
        PRIMARY KEY (sample_id, related_resource_id)
      )`);
    await queryRunner.query(
      'CREATE INDEX idx_sample_related_resource_resource ON sample_related_resource (related_resource_id)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sample_related_resource');
    await queryRunner.query('DROP TABLE related_resource');
  }
}
