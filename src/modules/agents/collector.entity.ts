import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Individual } from './individual.entity';
import { Institution } from './institution.entity';

/**
 * Who collected a sample: a person, an organisation or both, with free-text detail. Rows are shared:
 * the same (individual, institution, description) is one row, so a batch of thousands of samples
 * by one collector adds one row.
 */
@Entity('collector')
export class Collector {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer', nullable: true })
  individualId: number | null;

  @ManyToOne(() => Individual, { nullable: true, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'individual_id' })
  individual: Individual | null;

  @Column({ type: 'integer', nullable: true })
  institutionId: number | null;

  @ManyToOne(() => Institution, { nullable: true, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'institution_id' })
  institution: Institution | null;

  /** Free text about the collector (legacy `collector_detail`); not parsed. */
  @Column({ type: 'text', nullable: true })
  description: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
