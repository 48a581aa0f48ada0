import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * TypeORM loads every exported function of a migration file as a migration class: this file exports
 * only the class (and types); the seed steps are module-private.
 */

/**
 * Where the seed files are, from migrations/ (ts-node, jest) and from dist/migrations/ (nest build
 * copies them to dist/src/modules/vocabularies/seed-data) alike.
 */
const SEED_DATA_DIR = join(__dirname, '..', 'src', 'modules', 'vocabularies', 'seed-data');

type Nullable<T> = T | null;
type Sql = Pick<QueryRunner, 'query'>;

interface CountrySeed {
  label: string;
  iso3166code: Nullable<string>;
  active: boolean;
}
interface ObjectTypeSeed {
  label: string;
  parent: Nullable<string>;
  description: Nullable<string>;
  uri: Nullable<string>;
}
interface TermSeed {
  label: string;
  description: Nullable<string>;
  uri: Nullable<string>;
}
interface TimeScaleSeed {
  label: string;
  rank: string;
  parent: Nullable<string>;
  numeric_older_bound: Nullable<number>;
  numeric_younger_bound: Nullable<number>;
  notation: Nullable<string>;
  geologic_time_interval_uri: Nullable<string>;
  source: Nullable<string>;
  scheme_uri: Nullable<string>;
}
interface AgentRoleTypeSeed {
  label: string;
  description: Nullable<string>;
  source: Nullable<string>;
}

/** How many rows one seed run inserted and updated, per table. */
export type SeedReport = Record<string, { inserted: number; updated: number }>;

function readSeed<T>(file: string): T[] {
  return JSON.parse(readFileSync(join(SEED_DATA_DIR, file), 'utf8')) as T[];
}

interface Column {
  name: string;
  /** Element type of the unnest() array. */
  type: 'text' | 'boolean' | 'float8';
}

/**
 * One INSERT … SELECT FROM unnest(…) ON CONFLICT DO UPDATE for a whole file. The update only
 * touches rows whose values differ, so a second run writes nothing (and returns no rows).
 */
async function upsert(
  sql: Sql,
  table: string,
  conflictTarget: string,
  columns: Column[],
  rows: unknown[][],
): Promise<{ inserted: number; updated: number }> {
  if (!rows.length) return { inserted: 0, updated: 0 };
  const names = columns.map((c) => c.name);
  const arrays = columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  const params = columns.map((_, i) => rows.map((row) => row[i]));
  const result = (await sql.query(
    `INSERT INTO ${table} AS t (${names.join(', ')})
     SELECT * FROM unnest(${arrays}) AS s(${names.join(', ')})
     ON CONFLICT ${conflictTarget} DO UPDATE SET ${names.map((n) => `${n} = EXCLUDED.${n}`).join(', ')}
       WHERE (${names.map((n) => `t.${n}`).join(', ')}) IS DISTINCT FROM (${names.map((n) => `EXCLUDED.${n}`).join(', ')})
     RETURNING (xmax = 0) AS inserted`,
    params,
  )) as { inserted: boolean }[];
  const inserted = result.filter((r) => r.inserted).length;
  return { inserted, updated: result.length - inserted };
}

/** Points each row at its parent (by label), in one statement, changing only rows that differ. */
async function linkParents(
  sql: Sql,
  table: string,
  entries: { label: string; parent: string | null }[],
): Promise<number> {
  // Wrapped in a SELECT: TypeORM answers a bare UPDATE with [rows, count] rather than the rows.
  const result = (await sql.query(
    `WITH relinked AS (
       UPDATE ${table} AS t SET parent_id = s.parent_id
       FROM (SELECT child.id, parent.id AS parent_id
             FROM unnest($1::text[], $2::text[]) AS x(label, parent)
             JOIN ${table} child ON lower(child.label) = lower(x.label)
             LEFT JOIN ${table} parent ON lower(parent.label) = lower(x.parent)) AS s
       WHERE t.id = s.id AND t.parent_id IS DISTINCT FROM s.parent_id
       RETURNING t.id)
     SELECT count(*)::int AS count FROM relinked`,
    [entries.map((e) => e.label), entries.map((e) => e.parent)],
  )) as { count: number }[];
  return result[0].count;
}

function add(report: SeedReport, table: string, counts: { inserted: number; updated: number }, relinked = 0): void {
  const current = report[table] ?? { inserted: 0, updated: 0 };
  report[table] = {
    inserted: current.inserted + counts.inserted,
    updated: current.updated + counts.updated + relinked,
  };
}

/** `A > B > C` for every object type, from the flat list's parent labels. */
function hierarchicalLabels(entries: { label: string; parent: string | null }[]): Map<string, string> {
  const parentOf = new Map(entries.map((e) => [e.label, e.parent]));
  const paths = new Map<string, string>();
  for (const entry of entries) {
    const parts: string[] = [];
    const seen = new Set<string>();
    for (let label: string | null = entry.label; label !== null; label = parentOf.get(label) ?? null) {
      if (seen.has(label)) throw new Error(`object-types.json: cycle through "${label}"`);
      seen.add(label);
      parts.unshift(label);
    }
    paths.set(entry.label, parts.join(' > '));
  }
  return paths;
}

/** Loads every vocabulary from seed-data/*.json; inserts what is missing and corrects what differs. */
async function seedReferenceData(sql: Sql): Promise<SeedReport> {
  const report: SeedReport = {};
  const text = (name: string): Column => ({ name, type: 'text' });

  // Countries with an ISO code are keyed by the code (names change), the rest by label.
  const countries = readSeed<CountrySeed>('countries.json');
  const countryColumns: Column[] = [text('label'), text('iso3166code'), { name: 'active', type: 'boolean' }];
  const countryRow = (c: CountrySeed) => [c.label, c.iso3166code, c.active];
  add(
    report,
    'country',
    await upsert(
      sql,
      'country',
      '(iso3166code)',
      countryColumns,
      countries.filter((c) => c.iso3166code).map(countryRow),
    ),
  );
  add(
    report,
    'country',
    await upsert(
      sql,
      'country',
      '((lower(label)))',
      countryColumns,
      countries.filter((c) => !c.iso3166code).map(countryRow),
    ),
  );

  const objectTypes = readSeed<ObjectTypeSeed>('object-types.json');
  const paths = hierarchicalLabels(objectTypes);
  add(
    report,
    'object_type',
    await upsert(
      sql,
      'object_type',
      '((lower(label)))',
      [text('label'), text('hierarchical_label'), text('description'), text('uri')],
      objectTypes.map((o) => [o.label, paths.get(o.label), o.description, o.uri]),
    ),
    await linkParents(sql, 'object_type', objectTypes),
  );

  const timeScale = readSeed<TimeScaleSeed>('geologic-time-scale.json');
  add(
    report,
    'geologic_time_scale',
    await upsert(
      sql,
      'geologic_time_scale',
      '((lower(label)))',
      [
        text('label'),
        text('rank'),
        { name: 'numeric_older_bound', type: 'float8' },
        { name: 'numeric_younger_bound', type: 'float8' },
        text('notation'),
        text('geologic_time_interval_uri'),
        text('source'),
        text('scheme_uri'),
      ],
      timeScale.map((g) => [
        g.label,
        g.rank,
        g.numeric_older_bound,
        g.numeric_younger_bound,
        g.notation,
        g.geologic_time_interval_uri,
        g.source,
        g.scheme_uri,
      ]),
    ),
    await linkParents(sql, 'geologic_time_scale', timeScale),
  );

  const roles = readSeed<AgentRoleTypeSeed>('agent-role-types.json');
  add(
    report,
    'agent_role_type',
    await upsert(
      sql,
      'agent_role_type',
      '((lower(label)))',
      [text('label'), text('description'), text('source')],
      roles.map((r) => [r.label, r.description, r.source]),
    ),
  );

  const terms: [table: string, file: string][] = [
    ['material_type', 'material-types.json'],
    ['location_method', 'location-methods.json'],
    ['sampling_method', 'sampling-methods.json'],
    ['platform_type', 'platform-types.json'],
    ['launch_type', 'launch-types.json'],
  ];
  for (const [table, file] of terms) {
    add(
      report,
      table,
      await upsert(
        sql,
        table,
        '((lower(label)))',
        [text('label'), text('description'), text('uri')],
        readSeed<TermSeed>(file).map((t) => [t.label, t.description, t.uri]),
      ),
    );
  }
  return report;
}

/**
 * Seeds the vocabularies from src/modules/vocabularies/seed-data. Idempotent: it upserts by natural
 * key, so a later migration that calls seedReferenceData() again after the files change applies
 * only the difference.
 */
export class ReferenceDataSeed1763800300100 implements MigrationInterface {
  name = 'ReferenceDataSeed1763800300100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.seed(queryRunner);
  }

  /** The seed step on its own, reporting what it changed (nothing, when run again). */
  seed(sql: Sql): Promise<SeedReport> {
    return seedReferenceData(sql);
  }

  /** The tables themselves are dropped by ReferenceDataTables' down(); samples may reference the rows. */
  async down(): Promise<void> {}
}
