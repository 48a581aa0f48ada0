import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A file kept in PostgreSQL (uploaded spreadsheets, error reports, exports), so every API replica
 * and worker reads what another wrote; nothing lives on a process's local disk.
 */
@Entity('stored_file')
export class StoredFile {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'varchar', length: 255 })
  filename: string;

  @Column({ type: 'varchar', length: 255 })
  contentType: string;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  sizeBytes: number;

  @Column({ type: 'bytea', select: false })
  content: Buffer;

  @Column({ type: 'integer', nullable: true })
  ownerUserId: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** Its size counts in the owner's storage_used until it expires (exports). */
  @Column({ type: 'boolean', default: false })
  quotaCharged: boolean;
}
