import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batch curation: the audit trail of batch transitions (submit for review, accept, deactivate,
 * feedback), the feedback curators leave on a batch, and the notification outbox that tells the
 * batch owner about it (in-app rows, or e-mail rows pending delivery by a sender).
 */
export class Curation1763800600000 implements MigrationInterface {
  name = 'Curation1763800600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE batch_feedback (
        id serial PRIMARY KEY,
        batch_id integer NOT NULL REFERENCES batch_history(id) ON DELETE CASCADE,
        author_id integer REFERENCES registry_user(id) ON DELETE SET NULL,
        general_feedback text NOT NULL DEFAULT '',
        sample_feedback jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      'CREATE INDEX idx_batch_feedback_batch ON batch_feedback (batch_id, created_at DESC, id DESC)',
    );
    await queryRunner.query(`
      CREATE TABLE curation_event (
        id bigserial PRIMARY KEY,
        batch_id integer NOT NULL REFERENCES batch_history(id) ON DELETE CASCADE,
        actor_id integer REFERENCES registry_user(id) ON DELETE SET NULL,
        action varchar(32) NOT NULL CHECK (action IN ('submit_for_review', 'accept', 'deactivate', 'feedback')),
        from_state varchar(64),
        to_state varchar(64),
        affected_count integer NOT NULL,
        reason varchar(40),
        comment text,
        feedback_id integer REFERENCES batch_feedback(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      'CREATE INDEX idx_curation_event_batch ON curation_event (batch_id, created_at DESC, id DESC)',
    );
    await queryRunner.query(`
      CREATE TABLE notification (
        id bigserial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES registry_user(id) ON DELETE CASCADE,
        kind varchar(64) NOT NULL,
        subject varchar(255) NOT NULL,
        body jsonb NOT NULL DEFAULT '{}',
        channel varchar(16) NOT NULL CHECK (channel IN ('in_app', 'email')),
        delivery_status varchar(16) NOT NULL CHECK (delivery_status IN ('pending', 'delivered', 'failed')),
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        read_at timestamptz
      )`);
    await queryRunner.query('CREATE INDEX idx_notification_user ON notification (user_id, created_at DESC, id DESC)');
    await queryRunner.query(
      'CREATE INDEX idx_notification_unread ON notification (user_id, created_at DESC, id DESC) WHERE read_at IS NULL',
    );
    // The outbox a mail sender drains.
    await queryRunner.query(
      "CREATE INDEX idx_notification_outbox ON notification (created_at, id) WHERE delivery_status = 'pending'",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['notification', 'curation_event', 'batch_feedback']) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
