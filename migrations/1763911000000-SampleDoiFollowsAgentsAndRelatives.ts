import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each agent table and the columns of it that a sample's DataCite record carries (see
 * dataCiteAttributes): collectors become creators (a person's name parts and ORCID, the
 * institution's name and ROR as affiliation or as an organisational creator), the current archive
 * the HostingInstitution, the original archive, platform and launch platform labelled
 * descriptions. Any other column (email, address, city, …) is not sent, and editing it re-sends
 * nothing. Values are compared as the mapping reads them: trimmed, blank the same as absent.
 */
const AGENT_COLUMNS: Record<string, string[]> = {
  individual: ['label', 'fname', 'lname', 'individual_uri'],
  institution: ['label', 'ror'],
  archive: ['label'],
  platform: ['label', 'platform_type_id::text', 'description'],
  launch_platform: ['label', 'launch_type_id::text'],
};

/** The samples that name one of the agents in `changed` (an int[]), per agent table. */
const SAMPLES_NAMING: Record<string, string> = {
  individual: `SELECT sc.sample_id FROM collector c JOIN sample_collector sc ON sc.collector_id = c.id
                WHERE c.individual_id = ANY(changed)`,
  institution: `SELECT sc.sample_id FROM collector c JOIN sample_collector sc ON sc.collector_id = c.id
                 WHERE c.institution_id = ANY(changed)`,
  archive: `SELECT id FROM sample WHERE current_archive_id = ANY(changed)
            UNION SELECT id FROM sample WHERE original_archive_id = ANY(changed)`,
  platform: 'SELECT id FROM sample WHERE platform_id = ANY(changed)',
  launch_platform: 'SELECT id FROM sample WHERE launch_platform_id = ANY(changed)',
};

/** Sample columns an agent is reached from; indexed so an edit finds its samples without a scan of `sample`. */
const SAMPLE_AGENT_COLUMNS = ['platform_id', 'launch_platform_id', 'current_archive_id', 'original_archive_id'];

const changedAgents = (table: string) => {
  const text = (alias: string) => AGENT_COLUMNS[table].map((column) => `NULLIF(btrim(${alias}.${column}), '')`);
  return `ARRAY(SELECT n.id FROM new_agents n JOIN old_agents o ON o.id = n.id
                 WHERE (${text('n').join(', ')}) IS DISTINCT FROM (${text('o').join(', ')}))`;
};

/**
 * DataCite records that stay true (after issue 13 added agent PATCH).
 *
 * 1. Agent edits: PATCH of an individual, institution, archive, platform or launch platform (and
 *    the blanks create-or-match fills in) changes the DataCite record of every sample naming it. A
 *    statement trigger on each agent table marks those samples due in the same transaction, in one
 *    UPDATE however many samples there are; only when a column the record carries changed, and
 *    only samples DataCite holds or is about to receive (at_datacite, due or in flight, failed):
 *    a draft's record is built when it is first sent.
 * 2. Parents: a parent's record lists its public children (HasPart). The parent is now re-sent
 *    exactly when a child starts or stops being public under it, or moves between parents while
 *    public — not for drafts coming and going — and when a child's embargo ends (the worker's
 *    sweep, which before released only the child itself). A child whose embargo ended but that the
 *    sweep has not released yet counts as newly public when it is edited meanwhile, since the edit
 *    forgets the embargo in the outbox and the sweep will not see it.
 *
 * The triggers on `sample` move to a new function; the previous ones stay, unused, so that down()
 * restores them by pointing the triggers back.
 */
export class SampleDoiFollowsAgentsAndRelatives1763911000000 implements MigrationInterface {
  name = 'SampleDoiFollowsAgentsAndRelatives1763911000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const column of SAMPLE_AGENT_COLUMNS) {
      await queryRunner.query(`CREATE INDEX idx_sample_${column} ON sample (${column}) WHERE ${column} IS NOT NULL`);
    }
    // SampleAccessPolicy.isPublic at `at`, and the embargo the sweep is to release: for the triggers.
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_public(status varchar, deactivated boolean, publish timestamptz, at timestamptz)
        RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
        SELECT status = 'published' AND NOT deactivated AND (publish IS NULL OR publish <= at)
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_embargo(status varchar, deactivated boolean, publish timestamptz, at timestamptz)
        RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN status = 'published' AND NOT deactivated AND publish > at THEN publish END
      $$`);
    // Re-send samples whose record changed, of those DataCite holds or is about to receive.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION sample_doi_touch(ids bigint[]) RETURNS void LANGUAGE sql AS $$
        UPDATE sample_doi
           SET version = version + 1, error = NULL, attempts = 0, next_attempt_at = now(), updated_at = now()
         WHERE sample_id = ANY(ids) AND (at_datacite OR version > delivered_version OR state = 'failed')
      $$`);

    // One function for both triggers on `sample` (the transition tables name the changed rows
    // alike). Time is the moment the trigger runs, not the transaction's start: a sample published
    // "now" carries a publish_date taken after its transaction began, which now() would call an
    // embargo of a few milliseconds — sent once at once and again by the sweep, its parent only then.
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_follow_samples() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        at timestamptz := clock_timestamp();
        parents bigint[];
      BEGIN
        IF TG_OP = 'INSERT' THEN
          parents := ARRAY(
            SELECT DISTINCT parent_sample_id FROM changed_samples
             WHERE sample_doi_public(metadata_store_status, is_deactivated, publish_date, at)
               AND parent_sample_id NOT IN (SELECT id FROM changed_samples));
        ELSE
          IF NOT EXISTS (SELECT 1 FROM changed_samples) THEN
            RETURN NULL;
          END IF;
          -- The old parent may list the child once it was public by the clock (the worker lists
          -- children by the clock); the new one has listed it only if its embargo was released too.
          -- Read before the upsert below, which forgets an ended embargo the sweep has not released.
          parents := ARRAY(
            SELECT DISTINCT p.parent FROM (
              SELECT n.parent_sample_id AS new_parent, o.parent_sample_id AS old_parent,
                     sample_doi_public(o.metadata_store_status, o.is_deactivated, o.publish_date, at) AS was_public,
                     d.embargo_until IS NULL AS released,
                     sample_doi_public(n.metadata_store_status, n.is_deactivated, n.publish_date, at) AS is_public
                FROM changed_samples n
                JOIN previous_samples o ON o.id = n.id
                LEFT JOIN sample_doi d ON d.sample_id = n.id
            ) c, LATERAL (VALUES
              (CASE WHEN c.was_public AND (NOT c.is_public OR c.old_parent IS DISTINCT FROM c.new_parent)
                    THEN c.old_parent END),
              (CASE WHEN c.is_public AND (NOT (c.was_public AND c.released) OR c.old_parent IS DISTINCT FROM c.new_parent)
                    THEN c.new_parent END)
            ) AS p(parent)
             WHERE p.parent NOT IN (SELECT id FROM changed_samples));
        END IF;
        INSERT INTO sample_doi AS d (sample_id, embargo_until)
        SELECT id, sample_doi_embargo(metadata_store_status, is_deactivated, publish_date, at) FROM changed_samples
        ON CONFLICT (sample_id) DO UPDATE
          SET version = d.version + 1, embargo_until = EXCLUDED.embargo_until, error = NULL, attempts = 0,
              next_attempt_at = now(), updated_at = now();
        PERFORM sample_doi_touch(parents);
        PERFORM pg_notify('sample_doi', '');
        RETURN NULL;
      END
      $$`);
    await this.pointSampleTriggers(
      queryRunner,
      'sample_doi_follow_samples',
      'sample_doi_follow_samples',
      'changed_samples',
    );

    // The worker's sweep: ended embargoes make their samples due, and their parents (HasPart).
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_release_ended_embargoes() RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        released bigint[];
      BEGIN
        WITH ended AS (
          UPDATE sample_doi
             SET version = version + 1, embargo_until = NULL, next_attempt_at = now(), attempts = 0, error = NULL,
                 updated_at = now()
           WHERE embargo_until <= now()
          RETURNING sample_id)
        SELECT COALESCE(array_agg(sample_id), '{}') INTO released FROM ended;
        PERFORM sample_doi_touch(ARRAY(
          SELECT DISTINCT parent_sample_id FROM sample
           WHERE id = ANY(released) AND parent_sample_id IS NOT NULL AND parent_sample_id <> ALL(released)));
        RETURN cardinality(released);
      END
      $$`);

    // One function for every agent table: PL/pgSQL plans a trigger function per table, so each
    // table only ever runs its own branch.
    const branches = Object.keys(AGENT_COLUMNS)
      .map(
        (table, index) => `${index === 0 ? 'IF' : 'ELSIF'} TG_TABLE_NAME = '${table}' THEN
          changed := ${changedAgents(table)};
          IF cardinality(changed) > 0 THEN
            affected := ARRAY(${SAMPLES_NAMING[table]});
          END IF;`,
      )
      .join('\n        ');
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_follow_agents() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        changed integer[];
        affected bigint[] := '{}';
      BEGIN
        ${branches}
        END IF;
        IF cardinality(affected) > 0 THEN
          PERFORM sample_doi_touch(affected);
          PERFORM pg_notify('sample_doi', '');
        END IF;
        RETURN NULL;
      END
      $$`);
    for (const table of Object.keys(AGENT_COLUMNS)) {
      await queryRunner.query(`
        CREATE TRIGGER sample_doi_${table} AFTER UPDATE ON ${table}
          REFERENCING OLD TABLE AS old_agents NEW TABLE AS new_agents
          FOR EACH STATEMENT EXECUTE FUNCTION sample_doi_follow_agents()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of Object.keys(AGENT_COLUMNS)) {
      await queryRunner.query(`DROP TRIGGER sample_doi_${table} ON ${table}`);
    }
    await queryRunner.query('DROP FUNCTION sample_doi_follow_agents()');
    await queryRunner.query('DROP FUNCTION sample_doi_release_ended_embargoes()');
    await this.pointSampleTriggers(queryRunner, 'sample_doi_after_insert', 'sample_doi_after_update');
    await queryRunner.query('DROP FUNCTION sample_doi_follow_samples()');
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION sample_doi_touch(ids bigint[]) RETURNS void LANGUAGE sql AS $$
        UPDATE sample_doi
           SET version = version + 1, error = NULL, attempts = 0, next_attempt_at = now(), updated_at = now()
         WHERE sample_id = ANY(ids)
      $$`);
    await queryRunner.query('DROP FUNCTION sample_doi_embargo(varchar, boolean, timestamptz, timestamptz)');
    await queryRunner.query('DROP FUNCTION sample_doi_public(varchar, boolean, timestamptz, timestamptz)');
    for (const column of SAMPLE_AGENT_COLUMNS) await queryRunner.query(`DROP INDEX idx_sample_${column}`);
  }

  /** `changed` names the inserted or updated rows (the previous functions expect their own names). */
  private async pointSampleTriggers(
    queryRunner: QueryRunner,
    onInsert: string,
    onUpdate: string,
    changed?: string,
  ): Promise<void> {
    await queryRunner.query('DROP TRIGGER sample_doi_insert ON sample');
    await queryRunner.query('DROP TRIGGER sample_doi_update ON sample');
    await queryRunner.query(`
      CREATE TRIGGER sample_doi_insert AFTER INSERT ON sample
        REFERENCING NEW TABLE AS ${changed ?? 'inserted_samples'}
        FOR EACH STATEMENT EXECUTE FUNCTION ${onInsert}()`);
    await queryRunner.query(`
      CREATE TRIGGER sample_doi_update AFTER UPDATE ON sample
        REFERENCING OLD TABLE AS previous_samples NEW TABLE AS ${changed ?? 'updated_samples'}
        FOR EACH STATEMENT EXECUTE FUNCTION ${onUpdate}()`);
  }
}
