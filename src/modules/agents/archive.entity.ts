import { Column, Entity, JoinColumn, ManyToOne } from 'typeorm';
import { AgentRecordColumns } from './agent-record';
import { Institution } from './institution.entity';

/** A repository where physical samples are kept (a core repository, a museum collection). */
@Entity('archive')
export class Archive extends AgentRecordColumns {
  /** Unique after trimming, case-insensitively: create-or-match files every archive under its label. */
  @Column({ type: 'varchar', length: 200 })
  label: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  altLabel: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  countrySubdivision: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  city: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  url: string | null;

  @Column({ type: 'varchar', length: 36, nullable: true })
  uri: string | null;

  @Column({ type: 'integer', nullable: true })
  parentInstitutionId: number | null;

  @ManyToOne(() => Institution, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'parent_institution_id' })
  parentInstitution: Institution | null;
}
