import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The part an agent plays for a sample: collector, registrant, owner, curator… */
@Entity('agent_role_type')
export class AgentRoleType {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 50, nullable: true })
  label: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'text', nullable: true })
  source: string | null;
}
