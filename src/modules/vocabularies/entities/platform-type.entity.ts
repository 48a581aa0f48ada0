import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The kind of platform (ship, drill rig, aircraft…) a sample was collected from. */
@Entity('platform_type')
export class PlatformType {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  uri: string | null;
}
