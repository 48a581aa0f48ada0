import { MigrationInterface, QueryRunner } from 'typeorm';

/** The triggers that wake the DOI workers (SampleDoiFollowsAgentsAndRelatives, DoiScalePriority). */
const WAKING_FUNCTIONS = ['sample_doi_follow_samples_by_priority', 'sample_doi_follow_agents'];
const NOTIFY = `PERFORM pg_notify('sample_doi', '');`;
const WAKE = 'PERFORM sample_doi_wake();';

/**
 * The DOI triggers NOTIFY only when the workers are idle (ADR 0003). A transaction that notifies
 * takes one lock for the whole database at commit and keeps it until its commit record is flushed
 * (PostgreSQL's PreCommit_Notify): every sample write committed one at a time, each waiting for the
 * flush of the one before, instead of sharing flushes (group commit). At 16 connections the
 * benchmark's registrations spent more time waiting for that lock than running (1.3 of 2.2 active
 * sessions), and the one-statement SQL registration went from 823/s to 1,400/s without the notify.
 *
 * `sample_doi_workers.idle` says whether the workers' last claim found nothing due: a change must
 * then wake them. The workers' claim statement sets it (SampleDoiRepository.claimDue), so while a
 * drain runs, the changes it will claim in its next round notify nobody; the triggers only read it
 * (no lock, nothing written: a long batch transaction holds up no other writer). A change whose
 * transaction read "busy" and commits after the drain's last claim is picked up by the sweep
 * (every 5 s), as lost wake-ups always were. Busy at first: the workers look for due rows when they
 * start listening (DoiDeliveryProcessor.listen), and with DataCite off nothing needs waking.
 *
 * The two trigger functions are rewritten in place (their NOTIFY replaced by the call), not copied:
 * the migration fails if either no longer has the statement it replaces.
 */
export class SampleDoiWakeIdleWorkers1795700600000 implements MigrationInterface {
  name = 'SampleDoiWakeIdleWorkers1795700600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sample_doi_workers (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        idle boolean NOT NULL
      )`);
    await queryRunner.query('INSERT INTO sample_doi_workers (idle) VALUES (false)');
    // Without the row (deleted by hand), every change notifies, as before.
    await queryRunner.query(`
      CREATE FUNCTION sample_doi_wake() RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF coalesce((SELECT idle FROM sample_doi_workers), true) THEN
          PERFORM pg_notify('sample_doi', '');
        END IF;
      END
      $$`);
    await this.rewrite(queryRunner, NOTIFY, WAKE);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.rewrite(queryRunner, WAKE, NOTIFY);
    await queryRunner.query('DROP FUNCTION sample_doi_wake()');
    await queryRunner.query('DROP TABLE sample_doi_workers');
  }

  /** Replaces `from` by `to` in each waking function's definition, and fails if one lacks it. */
  private async rewrite(queryRunner: QueryRunner, from: string, to: string): Promise<void> {
    for (const fn of WAKING_FUNCTIONS) {
      const [{ definition }] = (await queryRunner.query('SELECT pg_get_functiondef($1::regproc) AS definition', [
        fn,
      ])) as { definition: string }[];
      if (!definition.includes(from)) throw new Error(`${fn} has no "${from}" to replace`);
      await queryRunner.query(definition.split(from).join(to));
    }
  }
}
