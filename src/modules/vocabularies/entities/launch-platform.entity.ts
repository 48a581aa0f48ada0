import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { LaunchType } from './launch-type.entity';

/** A named vehicle (e.g. ROV Jason) launched from a platform; created on first use, matched by label. */
@Entity('launch_platform')
export class LaunchPlatform {
  @PrimaryGeneratedColumn()
  id: number;

  /** Unique after trimming, case-insensitively. */
  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'integer', nullable: true })
  launchTypeId: number | null;

  @ManyToOne(() => LaunchType, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'launch_type_id' })
  launchType: LaunchType | null;

  @Column({ type: 'integer', nullable: true })
  createdBy: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
