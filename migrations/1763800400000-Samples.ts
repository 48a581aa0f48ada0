import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Samples and their child rows. IGSNs are stored as the bare upper-case suffix (`IEABC0001`); the
 * DOI form is the configured prefix plus the suffix. Substring search on igsn and name uses
 * trigram indexes; listing is newest first, then id.
 */
export class Samples1763800400000 implements MigrationInterface {
  name = 'Samples1763800400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The next counter value per registry code; the UPDATE that takes values locks the row, so
    // minting is safe across API replicas and workers.
    await queryRunner.query('ALTER TABLE registry_code ADD COLUMN igsn_counter bigint NOT NULL DEFAULT 0');
    await queryRunner.query(`
      CREATE TABLE sample (
        id bigserial PRIMARY KEY,
        igsn varchar(32) NOT NULL CHECK (igsn ~ '^[A-Z0-9.-]{9,32}$'),
        registry_code varchar(5) NOT NULL REFERENCES registry_code(code),
        name varchar(255) NOT NULL,
        object_type_id integer NOT NULL REFERENCES object_type(id),
        general_material_type varchar(255),
        material_types text[] NOT NULL DEFAULT '{}',
        sample_description text,
        latitude double precision CHECK (latitude BETWEEN -90 AND 90),
        longitude double precision CHECK (longitude BETWEEN -180 AND 180),
        end_latitude double precision CHECK (end_latitude BETWEEN -90 AND 90),
        end_longitude double precision CHECK (end_longitude BETWEEN -180 AND 180),
        elevation double precision,
        elevation_end double precision,
        elevation_unit varchar(10) CHECK (elevation_unit IN ('meters', 'kilometers', 'feet', 'miles')),
        depth_min double precision,
        depth_max double precision,
        depth_unit varchar(10) CHECK (depth_unit IN ('meters', 'kilometers', 'feet', 'miles')),
        country varchar(2),
        province varchar(255),
        county varchar(255),
        city varchar(255),
        locality varchar(255),
        location_description text,
        location_method varchar(255),
        purpose text,
        field_name varchar(255),
        primary_location_name varchar(255),
        primary_location_type varchar(255),
        vertical_datum varchar(255),
        northing varchar(255),
        easting varchar(255),
        zone varchar(255),
        depth_scale varchar(255),
        size_unit varchar(255),
        cruise_field_prgrm varchar(255),
        current_archive_contact varchar(255),
        original_archive_contact varchar(255),
        size varchar(255),
        parent_sample_id bigint REFERENCES sample(id) ON DELETE SET NULL,
        external_parent_name varchar(255),
        external_parent_object_type varchar(255),
        other_names text[] NOT NULL DEFAULT '{}',
        numeric_age_min double precision,
        numeric_age_max double precision,
        numeric_age_unit varchar(20),
        geologic_age_verbatim varchar(255),
        geologic_unit varchar(255),
        sampling_method varchar(255),
        sampling_method_detail text,
        sampling_start_date timestamptz,
        sampling_end_date timestamptz,
        sampling_date_precision varchar(10) CHECK (sampling_date_precision IN ('year', 'month', 'day', 'time')),
        launch_label varchar(255),
        platform_id integer REFERENCES platform(id),
        launch_platform_id integer REFERENCES launch_platform(id),
        current_archive_id integer REFERENCES archive(id),
        original_archive_id integer REFERENCES archive(id),
        related_resources jsonb NOT NULL DEFAULT '[]',
        metadata_store_status varchar(16) NOT NULL
          CHECK (metadata_store_status IN ('draft', 'pending-review', 'published')),
        publish_date timestamptz,
        is_deactivated boolean NOT NULL DEFAULT false,
        deactivate_reason varchar(40),
        deactivate_comment text,
        deactivated_at timestamptz,
        user_owner_id integer REFERENCES registry_user(id),
        team_owner_id integer REFERENCES team(id),
        batch_id integer,
        created_by integer REFERENCES registry_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (user_owner_id IS NOT NULL OR team_owner_id IS NOT NULL)
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_sample_igsn ON sample (igsn)');
    await queryRunner.query('CREATE INDEX idx_sample_igsn_trgm ON sample USING gin (igsn gin_trgm_ops)');
    await queryRunner.query('CREATE INDEX idx_sample_name_trgm ON sample USING gin (lower(name) gin_trgm_ops)');
    await queryRunner.query('CREATE INDEX idx_sample_newest ON sample (created_at DESC, id DESC)');
    // The public catalogue: published, active samples, newest first.
    await queryRunner.query(`
      CREATE INDEX idx_sample_public ON sample (created_at DESC, id DESC)
        WHERE metadata_store_status = 'published' AND NOT is_deactivated`);
    await queryRunner.query('CREATE INDEX idx_sample_user_owner ON sample (user_owner_id, created_at DESC, id DESC)');
    await queryRunner.query('CREATE INDEX idx_sample_team_owner ON sample (team_owner_id, created_at DESC, id DESC)');
    await queryRunner.query('CREATE INDEX idx_sample_object_type ON sample (object_type_id)');
    await queryRunner.query('CREATE INDEX idx_sample_country ON sample (country)');
    await queryRunner.query('CREATE INDEX idx_sample_batch ON sample (batch_id) WHERE batch_id IS NOT NULL');
    await queryRunner.query(`
      CREATE TABLE sample_collector (
        sample_id bigint NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
        position smallint NOT NULL,
        collector_id integer NOT NULL REFERENCES collector(id),
        PRIMARY KEY (sample_id, position)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE sample_collector');
    await queryRunner.query('DROP TABLE sample');
    await queryRunner.query('ALTER TABLE registry_code DROP COLUMN igsn_counter');
  }
}
