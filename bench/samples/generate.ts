import { Client } from 'pg';

/*
 * Synthetic samples, generated inside PostgreSQL: one INSERT … SELECT … FROM generate_series per
 * chunk computes every column in SQL, so no row crosses the wire and nothing is parsed. COPY would
 * add work, not remove it: the rows would be built in Node on the same two cores, then sent and
 * parsed. What costs is writing rows, per-row foreign-key triggers and index maintenance, so the
 * load skips the triggers (every referenced id is read from its table first), runs chunks on one
 * connection per core, and builds the secondary indexes after the load, several at once.
 */

/** Rock and sediment names: the first word of every sample name, and the source of `q` search terms. */
export const LITHOLOGIES = [
  'basalt',
  'andesite',
  'rhyolite',
  'dacite',
  'gabbro',
  'granite',
  'diorite',
  'peridotite',
  'komatiite',
  'obsidian',
  'pumice',
  'breccia',
  'conglomerate',
  'sandstone',
  'siltstone',
  'mudstone',
  'shale',
  'limestone',
  'dolomite',
  'chert',
  'gneiss',
  'schist',
  'phyllite',
  'quartzite',
  'marble',
  'amphibolite',
  'eclogite',
  'serpentinite',
  'evaporite',
  'turbidite',
];

const SAMPLE_FORMS = ['core', 'chip', 'slab', 'powder', 'cube', 'grab', 'dredge', 'nodule', 'split', 'section'];

/** Field areas: the third word of every sample name, and the other source of `q` search terms. */
export const SITES = [
  'Troodos',
  'Kilauea',
  'Hekla',
  'Semail',
  'Reykjanes',
  'Kerguelen',
  'Deccan',
  'Karoo',
  'Bushveld',
  'Skaergaard',
  'Stillwater',
  'Sudbury',
  'Pilbara',
  'Barberton',
  'Acasta',
  'Vredefort',
  'Lofoten',
  'Ivrea',
  'Lanzarote',
  'Santorini',
  'Vesuvius',
  'Pinatubo',
  'Erebus',
  'Taupo',
  'Yellowstone',
  'Cascadia',
  'Galapagos',
  'Azores',
  'Svalbard',
  'Atacama',
  'Zagros',
  'Ontong',
  'Lesotho',
  'Hebrides',
  'Dalradian',
  'Caledonia',
  'Grenville',
  'Wopmay',
  'Kaapvaal',
  'Yilgarn',
];

const FIRST_NAMES = ['Marie', 'Harry', 'Inge', 'Walter', 'Florence', 'Arthur', 'Tanya', 'Maurice', 'Ruth', 'Kiyoo'];
const LAST_NAMES = [
  'Tharp',
  'Hess',
  'Lehmann',
  'Munk',
  'Bascom',
  'Holmes',
  'Atwater',
  'Ewing',
  'Patrick',
  'Wadati',
  'Bullard',
  'Vine',
  'Cann',
  'Press',
  'Nance',
];
const INSTITUTIONS = [
  'Lamont-Doherty Earth Observatory',
  'Woods Hole Oceanographic Institution',
  'GFZ Potsdam',
  'British Geological Survey',
  'Geoscience Australia',
  'GNS Science',
  'IFREMER',
  'JAMSTEC',
];

/** How selective a `q` term is; names are `<Rock> <form> <Area> <year>-<nnnn>`. */
export type TermTier = 'common' | 'medium' | 'rare';

export const TERM_TIERS: readonly TermTier[] = ['common', 'medium', 'rare'];

/**
 * `q` terms a user might type, by tier. Common: 3 to 5 letters of a rock or area name, 1 in 30 or
 * 40 names (~25,000 public matches a million), like a search for a rock type. Medium: form, area
 * and year, 1 in 3,200 (~280 a million). Rare: area, year and the first three digits of the
 * number, 1 in 3.2 million × 1,000 (a handful a million), like a search for a field label.
 */
export function searchTerms(tier: TermTier = 'common'): string[] {
  const year = (index: number) => 2019 + (index % 7);
  switch (tier) {
    case 'common': {
      const fromWords = (words: string[], start: number) =>
        words.map((word, index) => word.toLowerCase().slice(start, start + 3 + (index % 3)));
      return [...fromWords(LITHOLOGIES, 0), ...fromWords(SITES, 1)];
    }
    case 'medium':
      return SITES.slice(0, 20).map(
        (site, index) => `${SAMPLE_FORMS[index % SAMPLE_FORMS.length]} ${site.toLowerCase()} ${year(index)}`,
      );
    case 'rare':
      return SITES.slice(0, 20).map(
        (site, index) => `${site.toLowerCase()} ${year(index)}-${String((index * 37) % 1000).padStart(3, '0')}`,
      );
  }
}

/** A SQL expression for `counter` in base 36, zero-padded to `width` digits (as IgsnService mints). */
function base36Sql(counter: string, width: number): string {
  const digits = Array.from({ length: width }, (_, i) => {
    const divisor = 36 ** (width - 1 - i);
    return `substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (((${counter}) / ${divisor}) % 36 + 1)::int, 1)`;
  });
  return digits.join(' || ');
}

/** The minted IGSN suffix for a counter value under a 5-character registry code, as SQL. */
export function mintedSuffixSql(code: string, counter: string): string {
  return `${code} || ${base36Sql(counter, 4)}`;
}

export interface GenerateOptions {
  count: number;
  ownerUserId: number;
  /** Registry codes (5 characters, owned by the owner) filled in order, `perCode` samples each. */
  registryCodes: string[];
  perCode: number;
  chunkSize?: number;
  /** Connections loading chunks and building indexes at once (default 2: one per core here). */
  connections?: number;
  log?: (line: string) => void;
}

export interface GenerateResult {
  seconds: number;
  samples: number;
  sampleCollectors: number;
}

/** The sample table's indexes other than its primary key, to drop before the load and rebuild after. */
/**
 * The sample table's secondary indexes: each one's definition and the statistics targets its
 * columns were given by migrations (a dropped and re-created index loses them), as statements.
 */
async function secondaryIndexes(client: Client): Promise<{ name: string; definition: string; settings: string[] }[]> {
  const { rows } = await client.query<{ name: string; definition: string; settings: string[] }>(
    `SELECT i.indexname AS name, i.indexdef AS definition,
            ARRAY(SELECT format('ALTER INDEX %I ALTER COLUMN %s SET STATISTICS %s', i.indexname, a.attnum, a.attstattarget)
                    FROM pg_attribute a
                   WHERE a.attrelid = format('%I', i.indexname)::regclass AND a.attnum > 0 AND a.attstattarget > 0
                   ORDER BY a.attnum) AS settings
       FROM pg_indexes i
      WHERE i.schemaname = current_schema() AND i.tablename = 'sample'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  return rows;
}

async function createCollectors(client: Client): Promise<number[]> {
  const people = await client.query<{ id: number }>(
    `INSERT INTO individual (label, fname, lname, match_key)
     SELECT f || ' ' || l, f, l, lower(f || ' ' || l) FROM unnest($1::text[]) f CROSS JOIN unnest($2::text[]) l
     RETURNING id`,
    [FIRST_NAMES, LAST_NAMES],
  );
  const institutions = await client.query<{ id: number }>(
    `INSERT INTO institution (label, match_key) SELECT label, lower(label) FROM unnest($1::text[]) label RETURNING id`,
    [INSTITUTIONS],
  );
  const collectors = await client.query<{ id: number }>(
    `INSERT INTO collector (individual_id, institution_id)
     SELECT person, NULL FROM unnest($1::int[]) person
     UNION ALL SELECT NULL, institution FROM unnest($2::int[]) institution
     RETURNING id`,
    [people.rows.map((row) => row.id), institutions.rows.map((row) => row.id)],
  );
  return collectors.rows.map((row) => row.id);
}

/** Runs `jobs` on `connections` clients at once, each client taking the next job when it is free. */
async function onConnections<T>(
  databaseUrl: string,
  connections: number,
  setup: string,
  jobs: T[],
  run: (client: Client, job: T) => Promise<void>,
): Promise<void> {
  const queue = [...jobs];
  const worker = async () => {
    const client = new Client({ connectionString: databaseUrl, application_name: 'bench-generate' });
    await client.connect();
    try {
      await client.query(setup);
      for (let job = queue.shift(); job !== undefined; job = queue.shift()) await run(client, job);
    } finally {
      await client.end();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(connections, jobs.length)) }, worker));
}

/**
 * Loads `count` samples into an empty sample table: ~90% published, 5% draft, 5% pending review;
 * object types from the seeded leaf types, countries from the seeded codes, created over the last
 * eight years in id order; ~20% with one or two collectors. Deterministic (each chunk seeds its own
 * random numbers, whichever connection runs it). Secondary indexes are dropped for the load and
 * rebuilt from their own definitions afterwards; then the IGSN counters are moved past the
 * generated range and the tables are vacuumed and analysed. Needs a superuser (it turns off the
 * foreign-key triggers for its own sessions).
 */
export async function generateSamples(databaseUrl: string, options: GenerateOptions): Promise<GenerateResult> {
  const log = options.log ?? (() => undefined);
  const chunkSize = options.chunkSize ?? 100_000;
  const connections = options.connections ?? 2;
  if (options.count > options.registryCodes.length * options.perCode) {
    throw new Error(`${options.registryCodes.length} registry codes hold at most ${options.perCode} samples each.`);
  }
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  const client = new Client({ connectionString: databaseUrl, application_name: 'bench-generate' });
  await client.connect();
  try {
    const objectTypeIds = (
      await client.query<{ id: number }>(
        `SELECT t.id FROM object_type t
          WHERE NOT EXISTS (SELECT 1 FROM object_type c WHERE c.parent_id = t.id) ORDER BY t.id`,
      )
    ).rows.map((row) => row.id);
    const countries = (
      await client.query<{ code: string }>(
        'SELECT iso3166code AS code FROM country WHERE iso3166code IS NOT NULL AND active ORDER BY iso3166code',
      )
    ).rows.map((row) => row.code);
    const materials = (await client.query<{ label: string }>('SELECT label FROM material_type ORDER BY id')).rows.map(
      (row) => row.label,
    );
    const collectorIds = await createCollectors(client);

    const indexes = await secondaryIndexes(client);
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    try {
      const insert = `
        INSERT INTO sample (igsn, registry_code, name, object_type_id, general_material_type, material_types,
                            sample_description, latitude, longitude, elevation, elevation_unit, country, locality,
                            sampling_start_date, sampling_date_precision, metadata_store_status, publish_date,
                            user_owner_id, created_by, created_at, updated_at)
        SELECT ${mintedSuffixSql('g.code', 'g.counter')}, g.code,
               initcap(g.lithology) || ' ' || g.form || ' ' || g.site || ' ' || to_char(g.created_at, 'YYYY') || '-'
                 || lpad((g.i % 10000)::text, 4, '0'),
               g.object_type_id, g.material, ARRAY[g.material],
               initcap(g.lithology) || ' ' || g.form || ' from the ' || g.site || ' area; fresh surface, '
                 || 'no visible alteration.',
               round((random() * 170 - 85)::numeric, 5)::float8, round((random() * 360 - 180)::numeric, 5)::float8,
               round((random() * 4500 - 500)::numeric, 1)::float8, 'meters', g.country, g.site,
               date_trunc('day', g.created_at - random() * interval '400 days'), 'day',
               g.status, CASE WHEN g.status = 'published' THEN g.created_at END,
               $12, $12, g.created_at, g.created_at
          FROM (
            SELECT s.i,
                   ($4::text[])[1 + (s.i - 1) / $5] AS code,
                   (s.i - 1) % $5 + 1 AS counter,
                   ($6::text[])[1 + floor(random() * cardinality($6::text[]))::int] AS lithology,
                   ($7::text[])[1 + floor(random() * cardinality($7::text[]))::int] AS form,
                   ($8::text[])[1 + floor(random() * cardinality($8::text[]))::int] AS site,
                   ($9::int[])[1 + floor(random() * cardinality($9::int[]))::int] AS object_type_id,
                   ($10::text[])[1 + floor(random() * cardinality($10::text[]))::int] AS country,
                   ($11::text[])[1 + floor(random() * cardinality($11::text[]))::int] AS material,
                   CASE WHEN s.r < 0.90 THEN 'published' WHEN s.r < 0.95 THEN 'draft' ELSE 'pending-review' END
                     AS status,
                   $13::timestamptz + ($14::timestamptz - $13::timestamptz) * ((s.i - 1)::float8 / $3)
                     + random() * interval '1 hour' AS created_at
              FROM (SELECT i, random() AS r FROM generate_series($1::bigint, $2::bigint) AS i OFFSET 0) s
            OFFSET 0
          ) g`;
      const end = new Date(Date.now() - 3_600_000);
      const start = new Date(end.getTime() - 8 * 365 * 86_400_000);
      const chunks: number[] = [];
      for (let low = 1; low <= options.count; low += chunkSize) chunks.push(low);
      let loaded = 0;
      // replica: no foreign-key triggers for these sessions (the ids come from the referenced tables).
      await onConnections(
        databaseUrl,
        connections,
        'SET synchronous_commit = off; SET session_replication_role = replica',
        chunks,
        async (loader, low) => {
          const high = Math.min(options.count, low + chunkSize - 1);
          await loader.query('SELECT setseed($1)', [(low % 2_000_003) / 2_000_003]);
          await loader.query(insert, [
            low,
            high,
            options.count,
            options.registryCodes,
            options.perCode,
            LITHOLOGIES,
            SAMPLE_FORMS,
            SITES,
            objectTypeIds,
            countries,
            materials,
            options.ownerUserId,
            start,
            end,
          ]);
          loaded += high - low + 1;
          log(`  ${loaded.toLocaleString('en')} samples (${elapsed()})`);
        },
      );
    } finally {
      // The trigram (GIN) builds are the longest and single-threaded: start them first, beside the rest.
      const ordered = [...indexes].sort(
        (a, b) => Number(/using gin/i.test(b.definition)) - Number(/using gin/i.test(a.definition)),
      );
      await onConnections(
        databaseUrl,
        connections,
        `SET maintenance_work_mem = '${connections > 1 ? 512 : 1024}MB'`,
        ordered,
        async (builder, index) => {
          const begin = performance.now();
          await builder.query(index.definition);
          for (const setting of index.settings) await builder.query(setting);
          log(`  index ${index.name} rebuilt in ${((performance.now() - begin) / 1000).toFixed(1)} s (${elapsed()})`);
        },
      );
    }

    // One collector for every fifth sample, a second one for a third of those.
    await client.query('SET session_replication_role = replica');
    const linked = await client.query(
      `INSERT INTO sample_collector (sample_id, position, collector_id)
       SELECT s.id, p.position, ($1::int[])[1 + (s.id * 7 + p.position * 13) % cardinality($1::int[])]
         FROM sample s
         CROSS JOIN LATERAL generate_series(0, CASE WHEN s.id % 15 = 0 THEN 1 ELSE 0 END) AS p(position)
        WHERE s.id % 5 = 0`,
      [collectorIds],
    );
    await client.query('RESET session_replication_role');
    log(`  ${(linked.rowCount ?? 0).toLocaleString('en')} sample collectors (${elapsed()})`);
    // Minting continues after the generated range (each code's sequence, as the application mints).
    await client.query(
      `SELECT setval(igsn_sequence_name(registry_code)::regclass, count(*))
         FROM sample GROUP BY registry_code`,
    );
    await client.query('VACUUM (ANALYZE) sample');
    await client.query('VACUUM (ANALYZE) sample_collector');
    log(`  vacuumed and analysed (${elapsed()})`);
    return {
      seconds: (performance.now() - started) / 1000,
      samples: options.count,
      sampleCollectors: linked.rowCount ?? 0,
    };
  } finally {
    await client.end();
  }
}
