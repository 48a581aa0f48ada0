import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A related resource as SESAR2 models it: an object with its own id (a publication, a data set, an
 * image), created by a user and linked to any number of samples (SampleRelatedResourceLink).
 */
@Entity('related_resource')
export class RelatedResourceObject {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'varchar', length: 20 })
  relatedResourceType: string;

  @Column({ type: 'varchar', length: 2000 })
  uri: string;

  @Column({ type: 'varchar', length: 20 })
  uriType: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'integer', nullable: true })
  createdBy: number | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** A sample linked to a related resource. */
@Entity('sample_related_resource')
export class SampleRelatedResourceLink {
  @PrimaryColumn({ type: 'bigint' })
  sampleId: string;

  @PrimaryColumn({ type: 'integer' })
  relatedResourceId: number;
}
