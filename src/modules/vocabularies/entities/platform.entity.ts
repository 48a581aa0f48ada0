import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PlatformType } from './platform-type.entity';

/** A named platform (a ship, a drill rig) samples were collected from; created on first use, matched by label. */
@Entity('platform')
export class Platform {
  @PrimaryGeneratedColumn()
  id: number;

  /** Unique after trimming, case-insensitively. */
  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'integer', nullable: true })
  platformTypeId: number | null;

  @ManyToOne(() => PlatformType, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'platform_type_id' })
  platformType: PlatformType | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'integer', nullable: true })
  createdBy: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
