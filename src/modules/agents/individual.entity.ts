import { Column, Entity, Index, JoinTable, ManyToMany } from 'typeorm';
import { AgentRecordColumns } from './agent-record';
import { Institution } from './institution.entity';

/** A person: a collector of samples, a registry user's public identity, a contact. */
@Entity('individual')
export class Individual extends AgentRecordColumns {
  @Index()
  @Column({ type: 'varchar', length: 200, nullable: true })
  label: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  fname: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  lname: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  altLabel: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  address: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  email: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  phone: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  fax: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  individualUri: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  institutionDetail: string | null;

  @ManyToMany(() => Institution)
  @JoinTable({
    name: 'individual_institution',
    joinColumn: { name: 'individual_id' },
    inverseJoinColumn: { name: 'institution_id' },
  })
  institutions: Institution[];

  /**
   * The normalised label under which create-or-match filed this row (unique, so concurrent matches
   * converge on one row); null for rows created explicitly: people may share a name.
   */
  @Column({ type: 'varchar', length: 200, nullable: true, select: false })
  matchKey: string | null;
}
