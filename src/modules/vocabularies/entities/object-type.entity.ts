import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';

/** A node of the object-type tree (what kind of physical object a sample is). */
@Entity('object_type')
export class ObjectType {
  @PrimaryGeneratedColumn()
  id: number;

  /** The leaf label, the last part of the path; unique case-insensitively. */
  @Column({ type: 'varchar', length: 50 })
  label: string;

  /** The full path from the root, `A > B > C`. */
  @Column({ type: 'text' })
  hierarchicalLabel: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  uri: string | null;

  @Column({ type: 'integer', nullable: true })
  parentId: number | null;

  @ManyToOne(() => ObjectType, { nullable: true, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'parent_id' })
  parent: ObjectType | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  schemeName: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  schemeUri: string | null;
}
