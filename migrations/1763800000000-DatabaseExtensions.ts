import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Extensions the schema relies on: pg_trgm for substring search indexes, unaccent for
 * accent-insensitive vocabulary search, citext for case-insensitive unique emails and labels.
 */
export class DatabaseExtensions1763800000000 implements MigrationInterface {
  name = 'DatabaseExtensions1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS unaccent');
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS citext');
    // unaccent() is only STABLE; an IMMUTABLE wrapper lets expression indexes use it.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION immutable_unaccent(text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION IF EXISTS immutable_unaccent(text)');
  }
}
