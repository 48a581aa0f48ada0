import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A unit of the ICS chronostratigraphic chart, with its bounds in Ma. */
@Entity('geologic_time_scale')
export class GeologicTimeScale {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 50 })
  label: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  geologicTimeIntervalUri: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  source: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  schemeUri: string | null;

  /** Older bound in Ma (millions of years before present). */
  @Column({ type: 'double precision', nullable: true })
  numericOlderBound: number | null;

  /** Younger bound in Ma. */
  @Column({ type: 'double precision', nullable: true })
  numericYoungerBound: number | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  notation: string | null;

  /** Super-Eon, Eon, Era, Period, Sub-Period, Epoch or Age (kept from the source, not in the API shape). */
  @Column({ type: 'varchar', length: 20, nullable: true })
  rank: string | null;

  /** The enclosing unit, when the chart names one. */
  @Column({ type: 'integer', nullable: true })
  parentId: number | null;
}
