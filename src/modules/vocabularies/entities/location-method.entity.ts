import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** How a sample's coordinates were determined. */
@Entity('location_method')
export class LocationMethod {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  uri: string | null;
}
