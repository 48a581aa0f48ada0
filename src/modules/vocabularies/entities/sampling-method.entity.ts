import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** How a sample was collected. */
@Entity('sampling_method')
export class SamplingMethod {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  uri: string | null;
}
