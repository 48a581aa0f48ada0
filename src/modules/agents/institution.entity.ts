import { Column, Entity, Index, JoinTable, ManyToMany } from 'typeorm';
import { AgentRecordColumns } from './agent-record';

/** An organisation: a university, survey, museum or company that people belong to or samples are kept at. */
@Entity('institution')
export class Institution extends AgentRecordColumns {
  @Index()
  @Column({ type: 'varchar', length: 200 })
  label: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  altLabel: string | null;

  @Column({ type: 'varchar', length: 100, default: 'institution' })
  institutionType: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  countrySubdivision: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  city: string | null;

  @Column({ type: 'varchar', length: 25, nullable: true })
  ror: string | null;

  @ManyToMany(() => Institution)
  @JoinTable({
    name: 'institution_parent',
    joinColumn: { name: 'institution_id' },
    inverseJoinColumn: { name: 'parent_institution_id' },
  })
  parentInstitutions: Institution[];

  /**
   * The normalised label under which create-or-match filed this row (unique, so concurrent matches
   * converge on one row); null for rows created explicitly, which may share a label.
   */
  @Column({ type: 'varchar', length: 200, nullable: true, select: false })
  matchKey: string | null;
}
