import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export interface CollectorPreset {
  label: string;
  description?: string | null;
}

/**
 * A saved template: which columns the workbook has (`selected_fields`, keys of BATCH_FIELDS) and
 * preset lists (platforms, archives, collectors, …) offered as dropdowns.
 */
@Entity('batch_template')
export class BatchTemplate {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'varchar', length: 5, nullable: true })
  registryCode: string | null;

  @Column({ type: 'integer', nullable: true })
  objectTypeId: number | null;

  @Column({ type: 'integer', nullable: true })
  userOwnerId: number | null;

  @Column({ type: 'integer', nullable: true })
  teamOwnerId: number | null;

  @Column({ type: 'integer', nullable: true })
  createdBy: number | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdDate: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  @Column({ type: 'boolean', default: false })
  isArchived: boolean;

  /** Bumped on every change; written into the workbook's Metadata sheet. */
  @Column({ type: 'integer', default: 1 })
  version: number;

  @Column({ type: 'jsonb', default: [] })
  selectedFields: string[];

  @Column({ type: 'jsonb', default: [] })
  cruiseFieldPrgrms: string[];

  @Column({ type: 'jsonb', default: [] })
  platforms: string[];

  @Column({ type: 'jsonb', default: [] })
  launchPlatforms: string[];

  @Column({ type: 'jsonb', default: [] })
  currentArchives: string[];

  @Column({ type: 'jsonb', default: [] })
  originalArchives: string[];

  /** Collectors offered in the Collector column. */
  @Column({ type: 'jsonb', default: [] })
  collectors: CollectorPreset[];
}
