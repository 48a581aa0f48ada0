import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * DataCite DOI registration (issue 16). `sample_doi` is both the outbox and the visible state:
 * one row per sample whose `version` is bumped by triggers on `sample` in the same transaction as
 * the change, by every writer (JSON API, batches, curation, legacy XML) without any of them
 * knowing. The worker sends a row while `version > delivered_version` and records the version it
 * delivered, so changes that pile up collapse into one request carrying the latest state.
 *
 * The triggers are statement-level with transition tables: a 50,000-row batch INSERT pays one
 * INSERT … SELECT into the outbox, not 50,000 trigger calls. NOTIFY is delivered at commit only,
 * so the worker is woken after the change is durable and never before.
 */
export class SampleDoiRegistration1763801600000 implements MigrationInterface {
  name = 'SampleDoiRegistration1763801600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // No foreign key to sample: samples are never deleted, and the per-row check would lock every
    // new sample row again (measured: minutes instead of 0.4 s for a 50,000-row INSERT here).
    await queryRunner.query(`
      CREATE TABLE sample_doi (
        sample_id bigint PRIMARY KEY,
        version bigint NOT NULL DEFAULT 1,
        delivered_version bigint NOT NULL DEFAULT 0,
        state varchar(16) NOT NULL DEFAULT 'pending'
          CHECK (state IN ('pending', 'findable', 'registered', 'failed')),
        at_datacite boolean NOT NULL DEFAULT false,
        error text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        embargo_until timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // What the worker looks for: rows with an undelivered version, oldest due first.
    await queryRunner.query(
      'CREATE INDEX idx_sample_doi_due ON sample_doi (next_attempt_at, sample_id) WHERE version > delivered_version',
    );
    // The embargo sweep: published samples that become public at a future time.
    await queryRunner.query(
      'CREATE INDEX idx_sample_doi_embargo ON sample_doi (embargo_until) WHERE embargo_until IS NOT NULL',
    );
    await queryRunner.query("CREATE INDEX idx_sample_doi_failed ON sample_doi (sample_id) WHERE state = 'failed'");

    await queryRunner.query(`
      CREATE FUNCTION sample_doi_embargo(status varchar, deactivated boolean, publish timestamptz)
        RETURNS timestamptz LANGUAGE sql STABLE AS $$
        SELECT CASE WHEN status = 'published' AND NOT deactivated AND publish > now() THEN publish END
      $$`);
    // A parent's DataCite record lists its public children (HasPart): a child that appears, moves
    // or changes visibility changes the parent's record too.
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_touch(ids bigint[]) RETURNS void LANGUAGE sql AS $$
        UPDATE sample_doi
           SET version = version + 1, error = NULL, attempts = 0, next_attempt_at = now(), updated_at = now()
         WHERE sample_id = ANY(ids)
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO sample_doi (sample_id, embargo_until)
        SELECT id, sample_doi_embargo(metadata_store_status, is_deactivated, publish_date) FROM inserted_samples;
        PERFORM sample_doi_touch(ARRAY(
          SELECT DISTINCT parent_sample_id FROM inserted_samples
           WHERE parent_sample_id IS NOT NULL AND parent_sample_id NOT IN (SELECT id FROM inserted_samples)));
        PERFORM pg_notify('sample_doi', '');
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM updated_samples) THEN
          RETURN NULL;
        END IF;
        INSERT INTO sample_doi AS d (sample_id, embargo_until)
        SELECT id, sample_doi_embargo(metadata_store_status, is_deactivated, publish_date) FROM updated_samples
        ON CONFLICT (sample_id) DO UPDATE
          SET version = d.version + 1, embargo_until = EXCLUDED.embargo_until, error = NULL, attempts = 0,
              next_attempt_at = now(), updated_at = now();
        PERFORM sample_doi_touch(ARRAY(
          SELECT DISTINCT parent FROM (
            SELECT n.parent_sample_id AS new_parent, o.parent_sample_id AS old_parent
              FROM updated_samples n JOIN previous_samples o ON o.id = n.id
             WHERE n.parent_sample_id IS DISTINCT FROM o.parent_sample_id
                OR n.metadata_store_status IS DISTINCT FROM o.metadata_store_status
                OR n.is_deactivated IS DISTINCT FROM o.is_deactivated
                OR n.publish_date IS DISTINCT FROM o.publish_date
          ) moved, LATERAL (VALUES (moved.new_parent), (moved.old_parent)) AS p(parent)
           WHERE parent IS NOT NULL AND parent NOT IN (SELECT id FROM updated_samples)));
        PERFORM pg_notify('sample_doi', '');
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER sample_doi_insert AFTER INSERT ON sample
        REFERENCING NEW TABLE AS inserted_samples
        FOR EACH STATEMENT EXECUTE FUNCTION sample_doi_after_insert()`);
    await queryRunner.query(`
      CREATE TRIGGER sample_doi_update AFTER UPDATE ON sample
        REFERENCING OLD TABLE AS previous_samples NEW TABLE AS updated_samples
        FOR EACH STATEMENT EXECUTE FUNCTION sample_doi_after_update()`);
    // Samples registered before this migration are due too: DataCite learns about them once the
    // registry is configured.
    await queryRunner.query(`
      INSERT INTO sample_doi (sample_id, embargo_until)
      SELECT id, sample_doi_embargo(metadata_store_status, is_deactivated, publish_date) FROM sample`);

    // The sitemap walks public samples in id order, a page of ids at a time, from the index alone.
    await queryRunner.query(`
      CREATE INDEX idx_sample_sitemap ON sample (id) INCLUDE (igsn, updated_at, publish_date)
        WHERE metadata_store_status = 'published' AND NOT is_deactivated`);
    // Children of a sample: landing pages link them, DataCite records list them (HasPart).
    await queryRunner.query(
      'CREATE INDEX idx_sample_parent ON sample (parent_sample_id) WHERE parent_sample_id IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX idx_sample_parent');
    await queryRunner.query('DROP INDEX idx_sample_sitemap');
    await queryRunner.query('DROP TRIGGER sample_doi_update ON sample');
    await queryRunner.query('DROP TRIGGER sample_doi_insert ON sample');
    await queryRunner.query('DROP FUNCTION sample_doi_after_update()');
    await queryRunner.query('DROP FUNCTION sample_doi_after_insert()');
    await queryRunner.query('DROP FUNCTION sample_doi_touch(bigint[])');
    await queryRunner.query('DROP FUNCTION sample_doi_embargo(varchar, boolean, timestamptz)');
    await queryRunner.query('DROP TABLE sample_doi');
  }
}
