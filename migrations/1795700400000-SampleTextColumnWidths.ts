import { MigrationInterface, QueryRunner } from 'typeorm';

/** The `sample` columns declared `varchar(n)` with n > 40, and their limits in characters. */
const LIMITED_COLUMNS: readonly (readonly [column: string, limit: number])[] = [
  ['name', 255],
  ['general_material_type', 255],
  ['province', 255],
  ['county', 255],
  ['city', 255],
  ['locality', 255],
  ['location_method', 255],
  ['field_name', 255],
  ['primary_location_name', 255],
  ['primary_location_type', 255],
  ['vertical_datum', 255],
  ['northing', 255],
  ['easting', 255],
  ['zone', 255],
  ['depth_scale', 255],
  ['size_unit', 255],
  ['cruise_field_prgrm', 255],
  ['current_archive_contact', 255],
  ['original_archive_contact', 255],
  ['size', 255],
  ['external_parent_name', 255],
  ['external_parent_object_type', 255],
  ['geologic_age_verbatim', 255],
  ['geologic_unit', 255],
  ['sampling_method', 255],
  ['launch_label', 255],
  ['external_sample_id', 255],
  ['legacy_sample_type', 512],
];

/**
 * Plans that hold before `sample` has statistics (issue 23 §7). Without statistics PostgreSQL
 * estimates a row's width from the declared types: 516 bytes for a `varchar(255)` in UTF-8 (255
 * characters of up to 4 bytes), 32 for `text`. The 28 limited columns summed past the 8 kB page, so
 * the planner took `sample` for a table of one row — one row per page, rounded down to none — and
 * chose any index for a lookup by id (a whole-index scan of `idx_sample_registry_code`, seconds at
 * 1,000,000 samples) right after a bulk load, until the first ANALYZE. As `text` the width estimate
 * is about 1.7 kB and a never-analysed table is sized from its pages.
 *
 * The limits stay, as CHECK constraints (the DTOs refuse longer values first with a 400). `varchar`
 * to `text` is binary-coercible: no rewrite; the constraints are checked in one pass.
 */
export class SampleTextColumnWidths1795700400000 implements MigrationInterface {
  name = 'SampleTextColumnWidths1795700400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const changes = LIMITED_COLUMNS.flatMap(([column, limit]) => [
      `ALTER COLUMN ${column} TYPE text`,
      `ADD CONSTRAINT chk_sample_${column}_length CHECK (char_length(${column}) <= ${limit})`,
    ]);
    await queryRunner.query(`ALTER TABLE sample ${changes.join(', ')}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const changes = LIMITED_COLUMNS.flatMap(([column, limit]) => [
      `DROP CONSTRAINT chk_sample_${column}_length`,
      `ALTER COLUMN ${column} TYPE varchar(${limit})`,
    ]);
    await queryRunner.query(`ALTER TABLE sample ${changes.join(', ')}`);
  }
}
