import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Individual } from '../agents/individual.entity';

/** A registry account. Its public identity (name, affiliation) is the linked Individual. */
@Entity('registry_user')
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  /** Unique case-insensitively (citext). Null for an account made by ORCID sign-in without a verified address. */
  @Column({ type: 'citext', unique: true, nullable: true })
  email: string | null;

  /** Null for an account that signs in with ORCID only. */
  @Column({ type: 'varchar', length: 100, select: false, nullable: true })
  passwordHash: string | null;

  @ManyToOne(() => Individual, { nullable: true, eager: false })
  @JoinColumn({ name: 'individual_id' })
  individual: Individual | null;

  @Column({ type: 'integer', nullable: true })
  individualId: number | null;

  @Column({ type: 'varchar', length: 19, nullable: true, unique: true })
  orcid: string | null;

  /** 1: may upload and generate developer tokens; 0 or null: may not. */
  @Column({ type: 'integer', nullable: true })
  uploadPermissionStatus: number | null;

  @Column({ type: 'boolean', default: false })
  isStaff: boolean;

  @Column({ type: 'boolean', default: false })
  isAdmin: boolean;

  @Column({ type: 'boolean', default: true })
  isActive: boolean;

  @Column({ type: 'bigint', default: 0, transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  storageUsed: number;

  @Column({
    type: 'bigint',
    default: 10 * 1024 ** 3,
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  storageLimit: number;

  @Column({ type: 'jsonb', default: {} })
  notificationPreferences: Record<string, unknown>;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  registrationDate: Date;
}
