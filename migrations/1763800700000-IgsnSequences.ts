import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One sequence per registry code for minting IGSNs. The counter row it replaces was locked by the
 * minting UPDATE until the registering transaction ended, so every registration under a code waited
 * for the one before it to commit. nextval() takes no lock that outlives the call and never hands
 * out a value twice; a value taken by a transaction that rolls back is a gap, which the contract
 * allows. A trigger creates the sequence with the code, so every way of adding a code gets one.
 */
export class IgsnSequences1763800700000 implements MigrationInterface {
  name = 'IgsnSequences1763800700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION igsn_sequence_name(code text) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT 'igsn_seq_' || lower(code) $$`);
    await queryRunner.query(`
      CREATE FUNCTION create_igsn_sequence() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I MINVALUE 1', igsn_sequence_name(NEW.code));
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER registry_code_igsn_sequence AFTER INSERT ON registry_code
        FOR EACH ROW EXECUTE FUNCTION create_igsn_sequence()`);
    // Existing codes continue after the last value their counter handed out.
    await queryRunner.query(`
      DO $$
      DECLARE rc record;
      BEGIN
        FOR rc IN SELECT code, igsn_counter FROM registry_code LOOP
          EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I MINVALUE 1', igsn_sequence_name(rc.code));
          IF rc.igsn_counter > 0 THEN
            PERFORM setval(igsn_sequence_name(rc.code)::regclass, rc.igsn_counter);
          END IF;
        END LOOP;
      END $$`);
    await queryRunner.query('ALTER TABLE registry_code DROP COLUMN igsn_counter');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE registry_code ADD COLUMN igsn_counter bigint NOT NULL DEFAULT 0');
    await queryRunner.query(`
      DO $$
      DECLARE rc record;
      BEGIN
        FOR rc IN SELECT code FROM registry_code LOOP
          UPDATE registry_code SET igsn_counter =
            (SELECT CASE WHEN is_called THEN last_value ELSE 0 END
               FROM pg_sequences WHERE sequencename = igsn_sequence_name(rc.code))
           WHERE code = rc.code;
          EXECUTE format('DROP SEQUENCE IF EXISTS %I', igsn_sequence_name(rc.code));
        END LOOP;
      END $$`);
    await queryRunner.query('DROP TRIGGER registry_code_igsn_sequence ON registry_code');
    await queryRunner.query('DROP FUNCTION create_igsn_sequence()');
    await queryRunner.query('DROP FUNCTION igsn_sequence_name(text)');
  }
}
