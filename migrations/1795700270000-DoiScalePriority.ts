import { MigrationInterface, QueryRunner } from 'typeorm';

/** More samples than this made due in one transaction are bulk work (docs/integrations/datacite-at-scale.md). */
const BULK_THRESHOLD = 100;

/**
 * DOIs at bulk scale (issue 27): two priorities in the outbox. `priority` 0 is interactive (a
 * sample registered, edited, deactivated or published through the JSON API, a small batch, one
 * staff re-send), 1 is bulk (a large batch, an agent rename touching many samples, re-sending all
 * failed samples). The worker claims interactive rows first, and bulk requests have a smaller
 * DataCite budget of their own, so one registration is never stuck behind 200,000 batch rows.
 *
 * Writers do not say which they are: the triggers count the samples each transaction makes due
 * (a transaction-local setting), and a transaction past BULK_THRESHOLD is bulk — every chunk of a
 * large batch, including its short last one. A row already pending keeps the more urgent of its
 * two priorities (an interactive edit of a sample waiting in a bulk backlog jumps the queue).
 *
 * The sample triggers move to a new function; the previous one stays, so down() points them back.
 */
export class DoiScalePriority1795700270000 implements MigrationInterface {
  name = 'DoiScalePriority1795700270000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE sample_doi ADD COLUMN priority smallint NOT NULL DEFAULT 0');
    // Rows pending before this migration are a backlog: bulk.
    await queryRunner.query('UPDATE sample_doi SET priority = 1 WHERE version > delivered_version');
    // claimDue reads one priority at a time, due rows in order: a range scan of this index, however
    // many rows of the other priority (or waiting for a retry) there are.
    await queryRunner.query(
      `CREATE INDEX idx_sample_doi_due_by_priority ON sample_doi (priority, next_attempt_at, sample_id)
        WHERE version > delivered_version`,
    );
    await queryRunner.query('DROP INDEX idx_sample_doi_due');

    // Adds `n` to the samples this transaction has made due; the priority they get.
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_priority(n bigint) RETURNS smallint LANGUAGE plpgsql AS $$
      DECLARE
        total bigint := COALESCE(NULLIF(current_setting('sample_doi.due_in_transaction', true), ''), '0')::bigint + n;
      BEGIN
        PERFORM set_config('sample_doi.due_in_transaction', total::text, true);
        RETURN CASE WHEN total > ${BULK_THRESHOLD} THEN 1 ELSE 0 END;
      END
      $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION sample_doi_touch(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        p smallint;
      BEGIN
        IF cardinality(ids) = 0 THEN
          RETURN;
        END IF;
        p := sample_doi_priority(cardinality(ids));
        UPDATE sample_doi
           SET version = version + 1, error = NULL, attempts = 0, next_attempt_at = now(), updated_at = now(),
               priority = CASE WHEN version > delivered_version THEN LEAST(priority, p) ELSE p END
         WHERE sample_id = ANY(ids) AND (at_datacite OR version > delivered_version OR state = 'failed');
      END
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_follow_samples_by_priority() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        at timestamptz := clock_timestamp();
        parents bigint[];
        p smallint;
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
          -- As in sample_doi_follow_samples (SampleDoiFollowsAgentsAndRelatives).
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
        p := sample_doi_priority((SELECT count(*) FROM changed_samples));
        INSERT INTO sample_doi AS d (sample_id, embargo_until, priority)
        SELECT id, sample_doi_embargo(metadata_store_status, is_deactivated, publish_date, at), p FROM changed_samples
        ON CONFLICT (sample_id) DO UPDATE
          SET version = d.version + 1, embargo_until = EXCLUDED.embargo_until, error = NULL, attempts = 0,
              next_attempt_at = now(), updated_at = now(),
              priority = CASE WHEN d.version > d.delivered_version THEN LEAST(d.priority, p) ELSE p END;
        PERFORM sample_doi_touch(parents);
        PERFORM pg_notify('sample_doi', '');
        RETURN NULL;
      END
      $$`);
    await this.pointSampleTriggers(queryRunner, 'sample_doi_follow_samples_by_priority');
    // Embargoes ending together: as many as a transaction would make due.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION sample_doi_release_ended_embargoes() RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        released bigint[];
        p smallint := sample_doi_priority((SELECT count(*) FROM sample_doi WHERE embargo_until <= now()));
      BEGIN
        WITH ended AS (
          UPDATE sample_doi
             SET version = version + 1, embargo_until = NULL, next_attempt_at = now(), attempts = 0, error = NULL,
                 updated_at = now(),
                 priority = CASE WHEN version > delivered_version THEN LEAST(priority, p) ELSE p END
           WHERE embargo_until <= now()
          RETURNING sample_id)
        SELECT COALESCE(array_agg(sample_id), '{}') INTO released FROM ended;
        PERFORM sample_doi_touch(ARRAY(
          SELECT DISTINCT parent_sample_id FROM sample
           WHERE id = ANY(released) AND parent_sample_id IS NOT NULL AND parent_sample_id <> ALL(released)));
        RETURN cardinality(released);
      END
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.pointSampleTriggers(queryRunner, 'sample_doi_follow_samples');
    await queryRunner.query('DROP FUNCTION sample_doi_follow_samples_by_priority()');
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION sample_doi_release_ended_embargoes() RETURNS integer LANGUAGE plpgsql AS $$
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
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION sample_doi_touch(ids bigint[]) RETURNS void LANGUAGE sql AS $$
        UPDATE sample_doi
           SET version = version + 1, error = NULL, attempts = 0, next_attempt_at = now(), updated_at = now()
         WHERE sample_id = ANY(ids) AND (at_datacite OR version > delivered_version OR state = 'failed')
      $$`);
    await queryRunner.query('DROP FUNCTION sample_doi_priority(bigint)');
    await queryRunner.query(
      'CREATE INDEX idx_sample_doi_due ON sample_doi (next_attempt_at, sample_id) WHERE version > delivered_version',
    );
    await queryRunner.query('DROP INDEX idx_sample_doi_due_by_priority');
    await queryRunner.query('ALTER TABLE sample_doi DROP COLUMN priority');
  }

  private async pointSampleTriggers(queryRunner: QueryRunner, fn: string): Promise<void> {
    await queryRunner.query('DROP TRIGGER sample_doi_insert ON sample');
    await queryRunner.query('DROP TRIGGER sample_doi_update ON sample');
    await queryRunner.query(`
      CREATE TRIGGER sample_doi_insert AFTER INSERT ON sample
        REFERENCING NEW TABLE AS changed_samples
        FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
    await queryRunner.query(`
      CREATE TRIGGER sample_doi_update AFTER UPDATE ON sample
        REFERENCING OLD TABLE AS previous_samples NEW TABLE AS changed_samples
        FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
  }
}
