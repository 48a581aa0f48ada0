import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from './user.entity';

export const TEAM_ROLES = ['viewer', 'editor', 'manager'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** A group of users that can own registry codes, samples, batches and templates together. */
@Entity('team')
export class Team {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'citext', unique: true })
  name: string;

  @OneToMany(() => TeamMember, (member) => member.team)
  members: TeamMember[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}

@Entity('team_member')
export class TeamMember {
  @PrimaryColumn({ type: 'integer' })
  teamId: number;

  @PrimaryColumn({ type: 'integer' })
  userId: number;

  @ManyToOne(() => Team, (team) => team.members, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'team_id' })
  team: Team;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: User;

  @Column({ type: 'varchar', length: 10 })
  role: TeamRole;
}
