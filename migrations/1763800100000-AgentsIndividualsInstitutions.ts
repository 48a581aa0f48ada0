import { MigrationInterface, QueryRunner } from 'typeorm';

/** People and organisations: collectors, registry users' identities, archives' parents. */
export class AgentsIndividualsInstitutions1763800100000 implements MigrationInterface {
  name = 'AgentsIndividualsInstitutions1763800100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE institution (
        id serial PRIMARY KEY,
        label varchar(200) NOT NULL,
        alt_label varchar(200),
        institution_type varchar(100) NOT NULL DEFAULT 'institution',
        description text,
        country_subdivision varchar(255),
        city varchar(255),
        ror varchar(25),
        created_by integer,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX idx_institution_label ON institution (label)');
    await queryRunner.query(`
      CREATE TABLE institution_parent (
        institution_id integer NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        parent_institution_id integer NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        PRIMARY KEY (institution_id, parent_institution_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE individual (
        id serial PRIMARY KEY,
        label varchar(200),
        fname varchar(100),
        lname varchar(100),
        alt_label varchar(100),
        description text,
        address varchar(500),
        email varchar(255),
        phone varchar(255),
        fax varchar(255),
        individual_uri varchar(255),
        institution_detail varchar(255),
        created_by integer,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX idx_individual_label ON individual (label)');
    await queryRunner.query(`
      CREATE TABLE individual_institution (
        individual_id integer NOT NULL REFERENCES individual(id) ON DELETE CASCADE,
        institution_id integer NOT NULL REFERENCES institution(id) ON DELETE CASCADE,
        PRIMARY KEY (individual_id, institution_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE individual_institution');
    await queryRunner.query('DROP TABLE individual');
    await queryRunner.query('DROP TABLE institution_parent');
    await queryRunner.query('DROP TABLE institution');
  }
}
