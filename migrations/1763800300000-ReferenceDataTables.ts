import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables of the controlled vocabularies: a label, a description and a URI at least. */
const SIMPLE_VOCABULARIES = ['material_type', 'location_method', 'sampling_method', 'platform_type', 'launch_type'];

/** Searched with `?search=` as the lists grow: trigram indexes on the accent-folded, lower-cased labels. */
const SEARCHED_COLUMNS: [table: string, column: string][] = [
  ['country', 'label'],
  ['geologic_time_scale', 'label'],
  ['archive', 'label'],
  ['archive', 'alt_label'],
  ['institution', 'label'],
  ['institution', 'alt_label'],
  ['individual', 'label'],
  ['individual', 'alt_label'],
];

/**
 * Reference data: the vocabularies (countries, object types, time scale, methods, platform and
 * launch types, agent roles, material types), archives, collectors, platforms and launch platforms,
 * and the country of institutions and individuals. Natural keys are unique case-insensitively so
 * the seed can upsert and create-or-match can use INSERT … ON CONFLICT.
 */
export class ReferenceDataTables1763800300000 implements MigrationInterface {
  name = 'ReferenceDataTables1763800300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE country (
        id serial PRIMARY KEY,
        label varchar(255) NOT NULL,
        iso3166code varchar(2) UNIQUE,
        active boolean NOT NULL DEFAULT true
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_country_label ON country (lower(label))');

    await queryRunner.query(`
      CREATE TABLE agent_role_type (
        id serial PRIMARY KEY,
        label varchar(50),
        description text,
        source text
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_agent_role_type_label ON agent_role_type (lower(label))');

    await queryRunner.query(`
      CREATE TABLE object_type (
        id serial PRIMARY KEY,
        label varchar(50) NOT NULL,
        hierarchical_label text NOT NULL,
        description text,
        uri varchar(255),
        parent_id integer REFERENCES object_type(id) ON DELETE RESTRICT,
        scheme_name varchar(50),
        scheme_uri varchar(255),
        CHECK (parent_id IS DISTINCT FROM id)
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_object_type_label ON object_type (lower(label))');
    await queryRunner.query(
      'CREATE UNIQUE INDEX uq_object_type_hierarchical_label ON object_type (lower(hierarchical_label))',
    );
    await queryRunner.query('CREATE INDEX idx_object_type_parent ON object_type (parent_id)');

    await queryRunner.query(`
      CREATE TABLE geologic_time_scale (
        id serial PRIMARY KEY,
        label varchar(50) NOT NULL,
        description text,
        geologic_time_interval_uri varchar(255),
        source varchar(255),
        scheme_uri varchar(255),
        numeric_older_bound double precision,
        numeric_younger_bound double precision,
        notation varchar(32),
        rank varchar(20),
        parent_id integer REFERENCES geologic_time_scale(id) ON DELETE SET NULL
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_geologic_time_scale_label ON geologic_time_scale (lower(label))');

    for (const table of SIMPLE_VOCABULARIES) {
      await queryRunner.query(`
        CREATE TABLE ${table} (
          id serial PRIMARY KEY,
          label varchar(255) NOT NULL,
          description text,
          uri varchar(255)
        )`);
      await queryRunner.query(`CREATE UNIQUE INDEX uq_${table}_label ON ${table} (lower(label))`);
    }

    await queryRunner.query(`
      CREATE TABLE platform (
        id serial PRIMARY KEY,
        label varchar(255) NOT NULL,
        platform_type_id integer REFERENCES platform_type(id) ON DELETE SET NULL,
        description text,
        created_by integer,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_platform_label ON platform (lower(btrim(label)))');
    await queryRunner.query(`
      CREATE TABLE launch_platform (
        id serial PRIMARY KEY,
        label varchar(255) NOT NULL,
        launch_type_id integer REFERENCES launch_type(id) ON DELETE SET NULL,
        created_by integer,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_launch_platform_label ON launch_platform (lower(btrim(label)))');

    for (const table of ['institution', 'individual']) {
      await queryRunner.query(
        `ALTER TABLE ${table}
           ADD COLUMN country_id integer REFERENCES country(id) ON DELETE SET NULL,
           ADD COLUMN match_key varchar(200) UNIQUE`,
      );
      await queryRunner.query(`CREATE INDEX idx_${table}_normalised_label ON ${table} (lower(btrim(label)))`);
    }

    await queryRunner.query(`
      CREATE TABLE archive (
        id serial PRIMARY KEY,
        label varchar(200) NOT NULL,
        alt_label varchar(200),
        description text,
        country_id integer REFERENCES country(id) ON DELETE SET NULL,
        country_subdivision varchar(255),
        city varchar(255),
        url varchar(200),
        uri varchar(36),
        parent_institution_id integer REFERENCES institution(id) ON DELETE SET NULL,
        created_by integer,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_archive_label ON archive (lower(btrim(label)))');

    await queryRunner.query(`
      CREATE TABLE collector (
        id serial PRIMARY KEY,
        individual_id integer REFERENCES individual(id) ON DELETE RESTRICT,
        institution_id integer REFERENCES institution(id) ON DELETE RESTRICT,
        description text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (individual_id IS NOT NULL OR institution_id IS NOT NULL OR description IS NOT NULL)
      )`);
    // One row per (individual, institution, description); md5 keeps long descriptions indexable.
    await queryRunner.query(`
      CREATE UNIQUE INDEX uq_collector ON collector
        ((COALESCE(individual_id, 0)), (COALESCE(institution_id, 0)), (md5(COALESCE(description, ''))))`);
    await queryRunner.query('CREATE INDEX idx_collector_institution ON collector (institution_id)');

    for (const [table, column] of SEARCHED_COLUMNS) {
      await queryRunner.query(
        `CREATE INDEX trgm_${table}_${column} ON ${table} USING gin (lower(immutable_unaccent(${column})) gin_trgm_ops)`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE collector');
    await queryRunner.query('DROP TABLE archive');
    for (const table of ['institution', 'individual']) {
      await queryRunner.query(`DROP INDEX trgm_${table}_label`);
      await queryRunner.query(`DROP INDEX trgm_${table}_alt_label`);
      await queryRunner.query(`DROP INDEX idx_${table}_normalised_label`);
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN country_id, DROP COLUMN match_key`);
    }
    await queryRunner.query('DROP TABLE launch_platform');
    await queryRunner.query('DROP TABLE platform');
    for (const table of SIMPLE_VOCABULARIES) await queryRunner.query(`DROP TABLE ${table}`);
    await queryRunner.query('DROP TABLE geologic_time_scale');
    await queryRunner.query('DROP TABLE object_type');
    await queryRunner.query('DROP TABLE agent_role_type');
    await queryRunner.query('DROP TABLE country');
  }
}
