import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One uploaded batch: who, when, which file, which job, and (once processed) how many samples. */
@Entity('batch_history')
export class BatchHistory {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 32, default: 'registration' })
  batchType: string;

  @Column({ type: 'varchar', length: 5, nullable: true })
  registryCode: string | null;

  @Column({ type: 'integer', nullable: true })
  sampleCount: number | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  uploadTime: Date;

  @Column({ type: 'timestamptz', nullable: true })
  processedTime: Date | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  filename: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  objectType: string | null;

  @Column({ type: 'boolean', default: false })
  saveAsDraft: boolean;

  @Column({ type: 'integer', nullable: true })
  uploadedById: number | null;

  @Column({ type: 'integer', nullable: true })
  userOwnerId: number | null;

  @Column({ type: 'integer', nullable: true })
  teamOwnerId: number | null;

  @Column({ type: 'integer', nullable: true })
  templateId: number | null;

  @Column({ type: 'uuid', nullable: true })
  fileId: string | null;

  @Column({ type: 'uuid', nullable: true })
  jobId: string | null;

  /** SHA-256 (hex) of the uploaded workbook: the same file from the same uploader is a duplicate. */
  @Column({ type: 'char', length: 64, nullable: true })
  contentSha256: string | null;
}
