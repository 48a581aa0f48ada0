import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The kind of vehicle (ROV, AUV, HOV…) launched from a platform to collect a sample. */
@Entity('launch_type')
export class LaunchType {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  uri: string | null;
}
