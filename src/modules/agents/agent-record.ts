import { Column, CreateDateColumn, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Country } from '../vocabularies/entities/country.entity';

/**
 * The columns people, institutions and archives have alike: a shared record placed in a country,
 * made by a user (who may edit it while no other owner uses it) at a time. Not an entity itself:
 * Individual, Institution and Archive extend it, each with its own table.
 */
export abstract class AgentRecordColumns {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'integer', nullable: true })
  countryId: number | null;

  @ManyToOne(() => Country, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'country_id' })
  country: Country | null;

  /** The user who created the row (may edit it); null for seeded or system rows. */
  @Column({ type: 'integer', nullable: true })
  createdBy: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
