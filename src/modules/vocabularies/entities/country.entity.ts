import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An ISO 3166-1 country (active) or a name the registry's list carries that ISO does not (inactive). */
@Entity('country')
export class Country {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  /** ISO 3166-1 alpha-2 code; null for the few inactive names without one. */
  @Column({ name: 'iso3166code', type: 'varchar', length: 2, nullable: true })
  iso3166code: string | null;

  /** Only active countries are offered in search and accepted in writes. */
  @Column({ type: 'boolean', default: true })
  active: boolean;
}
