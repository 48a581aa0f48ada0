import { MigrationInterface, QueryRunner } from 'typeorm';

// The comparable forms of ORCID and ROR ids, as src/modules/agents/agent-identity.ts writes them
// (the planner uses an expression index only for the same expression).
const IDENTIFIERS = [
  {
    table: 'individual',
    column: 'individual_uri',
    key: "COALESCE(substring(upper(individual_uri) from '[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]'), lower(btrim(individual_uri)))",
  },
  {
    table: 'institution',
    column: 'ror',
    key: "lower(regexp_replace(btrim(ror), '^(https?://)?(www[.])?ror[.]org/', '', 'i'))",
  },
];

/**
 * Indexes for matching people and organisations (src/modules/agents/agent-identity.ts): by the
 * comparable form of their identifier (ORCID, ROR id) and by label (trimmed, case-insensitive), so
 * a name matches only when exactly one record has it without reading the whole table.
 */
export class AgentIdentifiers1763901000000 implements MigrationInterface {
  name = 'AgentIdentifiers1763901000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { table, column, key } of IDENTIFIERS) {
      await queryRunner.query(
        `CREATE INDEX idx_${table}_identifier ON ${table} ((${key})) WHERE ${column} IS NOT NULL`,
      );
      await queryRunner.query(`CREATE INDEX idx_${table}_label_key ON ${table} ((lower(btrim(label))))`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['individual', 'institution']) {
      await queryRunner.query(`DROP INDEX idx_${table}_label_key`);
      await queryRunner.query(`DROP INDEX idx_${table}_identifier`);
    }
  }
}
