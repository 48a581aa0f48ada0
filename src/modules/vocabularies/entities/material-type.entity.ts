import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A general class of material a sample is made of (rock, sediment, liquid…). */
@Entity('material_type')
export class MaterialType {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  uri: string | null;

  /** False for deprecated terms: kept for migrated samples and legacy XML, refused in new JSON and batch writes. */
  @Column({ type: 'boolean', default: true })
  forRegistration: boolean;
}
