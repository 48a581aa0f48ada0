import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The material-type vocabulary gains the two rock names the previous system's batch template offers
 * in its material dropdown (Granite, Limestone), so its filled-in workbooks upload unchanged now that
 * general material types are checked. New databases get them from the seed files; this adds them to
 * databases seeded before.
 */
const TERMS: [string, string][] = [
  [
    'Granite',
    "Coarse-grained plutonic rock of quartz and feldspar; offered as a material by the previous system's batch template.",
  ],
  [
    'Limestone',
    "Sedimentary rock made mostly of calcium carbonate; offered as a material by the previous system's batch template.",
  ],
];

export class MaterialTypesFromBatchTemplate1763907000000 implements MigrationInterface {
  name = 'MaterialTypesFromBatchTemplate1763907000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [label, description] of TERMS) {
      await queryRunner.query(
        `INSERT INTO material_type (label, description)
         SELECT $1::varchar, $2::text
         WHERE NOT EXISTS (SELECT 1 FROM material_type WHERE lower(label) = lower($1::varchar))`,
        [label, description],
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM material_type WHERE label = ANY($1::text[])`, [TERMS.map(([label]) => label)]);
  }
}
