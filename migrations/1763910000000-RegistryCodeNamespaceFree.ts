import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An IGSN belongs to the longest registry code it starts with (issue 13). A new code whose namespace
 * already holds IGSNs registered under a shorter code (`IE1` registered `IE1AB0001`; now `IE1AB`)
 * would silently take them over: the database refuses it, whatever creates the code (CLI, service,
 * SQL). The shorter codes' rows are locked first: registrations under them key-share-lock their
 * code's row before looking for longer codes, so a registration and a new code cannot pass each
 * other unseen. The error carries the count and the first IGSN in DETAIL, as JSON.
 */
export class RegistryCodeNamespaceFree1763910000000 implements MigrationInterface {
  name = 'RegistryCodeNamespaceFree1763910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION registry_code_namespace_free() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        taken bigint;
        first_igsn text;
      BEGIN
        IF EXISTS (SELECT 1 FROM registry_code WHERE code = NEW.code) THEN
          RETURN NEW; -- a duplicate: the insert's own conflict handling answers
        END IF;
        PERFORM 1 FROM registry_code
          WHERE length(code) < length(NEW.code) AND code = left(NEW.code, length(code))
          FOR UPDATE;
        SELECT count(*), min(igsn) INTO taken, first_igsn FROM sample WHERE igsn LIKE NEW.code || '%';
        IF taken > 0 THEN
          RAISE EXCEPTION 'registry code % would take over % IGSN(s) registered under a shorter code', NEW.code, taken
            USING ERRCODE = 'check_violation', CONSTRAINT = 'registry_code_namespace_free',
                  DETAIL = json_build_object('count', taken, 'first', first_igsn)::text;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER registry_code_namespace_free BEFORE INSERT ON registry_code
        FOR EACH ROW EXECUTE FUNCTION registry_code_namespace_free()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER registry_code_namespace_free ON registry_code');
    await queryRunner.query('DROP FUNCTION registry_code_namespace_free()');
  }
}
