import { Column, Entity, Generated, PrimaryColumn } from 'typeorm';

/** `reserved`: an IGSN minted before fieldwork (POST /api/samples/reserve/), completed later by PATCH or a batch. */
export const STORE_STATUSES = ['reserved', 'draft', 'pending-review', 'published'] as const;
export type StoreStatus = (typeof STORE_STATUSES)[number];

export const LENGTH_UNITS = ['meters', 'kilometers', 'feet', 'miles'] as const;
export type LengthUnit = (typeof LENGTH_UNITS)[number];

export const DATE_PRECISIONS = ['year', 'month', 'day', 'time'] as const;

export const DEACTIVATE_REASONS = [
  'this was a test sample',
  'this sample does not exist',
  'duplicate igsn',
  'other',
] as const;
export type DeactivateReason = (typeof DEACTIVATE_REASONS)[number];

export interface RelatedResource {
  uri: string;
  description: string | null;
  relation_type: string | null;
}

const numeric = {
  to: (value: unknown) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/**
 * A physical sample identified by an IGSN. `igsn` holds the bare upper-case suffix.
 * Length-limited text columns are `text` with a CHECK on their length (migration
 * SampleTextColumnWidths), not `varchar(n)`: the planner's width estimate stays under a page
 * before the table has statistics.
 */
@Entity('sample')
export class Sample {
  @PrimaryColumn({ type: 'bigint', transformer: numeric })
  @Generated('increment')
  id: number;

  @Column({ type: 'varchar', length: 32 })
  igsn: string;

  @Column({ type: 'varchar', length: 5 })
  registryCode: string;

  @Column({ type: 'text' })
  name: string;

  /** The client's own id for the sample; unique per user owner among active samples (uq_sample_owner_external_id). */
  @Column({ type: 'text', nullable: true })
  externalSampleId: string | null;

  /** Null only while the sample is reserved (a CHECK constraint holds it so). */
  @Column({ type: 'integer', nullable: true })
  objectTypeId: number | null;

  /** The SESAR 1.0 sample type (`Type > Subtype`) a legacy XML client sent, as sent; null otherwise. */
  @Column({ type: 'text', nullable: true })
  legacySampleType: string | null;

  @Column({ type: 'text', nullable: true })
  generalMaterialType: string | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  materialTypes: string[];

  @Column({ type: 'text', nullable: true })
  sampleDescription: string | null;

  @Column({ type: 'double precision', nullable: true })
  latitude: number | null;

  @Column({ type: 'double precision', nullable: true })
  longitude: number | null;

  @Column({ type: 'double precision', nullable: true })
  endLatitude: number | null;

  @Column({ type: 'double precision', nullable: true })
  endLongitude: number | null;

  @Column({ type: 'double precision', nullable: true })
  elevation: number | null;

  @Column({ type: 'double precision', nullable: true })
  elevationEnd: number | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  elevationUnit: LengthUnit | null;

  @Column({ type: 'double precision', nullable: true })
  depthMin: number | null;

  @Column({ type: 'double precision', nullable: true })
  depthMax: number | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  depthUnit: LengthUnit | null;

  @Column({ type: 'varchar', length: 2, nullable: true })
  country: string | null;

  @Column({ type: 'text', nullable: true })
  province: string | null;

  @Column({ type: 'text', nullable: true })
  county: string | null;

  @Column({ type: 'text', nullable: true })
  city: string | null;

  @Column({ type: 'text', nullable: true })
  locality: string | null;

  @Column({ type: 'text', nullable: true })
  locationDescription: string | null;

  @Column({ type: 'text', nullable: true })
  locationMethod: string | null;

  @Column({ type: 'text', nullable: true })
  purpose: string | null;

  @Column({ type: 'text', nullable: true })
  size: string | null;

  // Further SESAR fields, kept so legacy XML and batch spreadsheets lose nothing.
  @Column({ type: 'text', nullable: true })
  fieldName: string | null;

  @Column({ type: 'text', nullable: true })
  primaryLocationName: string | null;

  @Column({ type: 'text', nullable: true })
  primaryLocationType: string | null;

  @Column({ type: 'text', nullable: true })
  verticalDatum: string | null;

  @Column({ type: 'text', nullable: true })
  northing: string | null;

  @Column({ type: 'text', nullable: true })
  easting: string | null;

  @Column({ type: 'text', nullable: true })
  zone: string | null;

  @Column({ type: 'text', nullable: true })
  depthScale: string | null;

  @Column({ type: 'text', nullable: true })
  sizeUnit: string | null;

  @Column({ type: 'text', nullable: true })
  cruiseFieldPrgrm: string | null;

  @Column({ type: 'text', nullable: true })
  currentArchiveContact: string | null;

  @Column({ type: 'text', nullable: true })
  originalArchiveContact: string | null;

  @Column({ type: 'bigint', nullable: true, transformer: numeric })
  parentSampleId: number | null;

  @Column({ type: 'text', nullable: true })
  externalParentName: string | null;

  @Column({ type: 'text', nullable: true })
  externalParentObjectType: string | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  otherNames: string[];

  @Column({ type: 'double precision', nullable: true })
  numericAgeMin: number | null;

  @Column({ type: 'double precision', nullable: true })
  numericAgeMax: number | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  numericAgeUnit: string | null;

  @Column({ type: 'text', nullable: true })
  geologicAgeVerbatim: string | null;

  @Column({ type: 'text', nullable: true })
  geologicUnit: string | null;

  @Column({ type: 'text', nullable: true })
  samplingMethod: string | null;

  @Column({ type: 'text', nullable: true })
  samplingMethodDetail: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  samplingStartDate: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  samplingEndDate: Date | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  samplingDatePrecision: string | null;

  @Column({ type: 'text', nullable: true })
  launchLabel: string | null;

  @Column({ type: 'integer', nullable: true })
  platformId: number | null;

  @Column({ type: 'integer', nullable: true })
  launchPlatformId: number | null;

  @Column({ type: 'integer', nullable: true })
  currentArchiveId: number | null;

  @Column({ type: 'integer', nullable: true })
  originalArchiveId: number | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  relatedResources: RelatedResource[];

  @Column({ type: 'varchar', length: 16 })
  metadataStoreStatus: StoreStatus;

  @Column({ type: 'timestamptz', nullable: true })
  publishDate: Date | null;

  @Column({ type: 'boolean', default: false })
  isDeactivated: boolean;

  @Column({ type: 'varchar', length: 40, nullable: true })
  deactivateReason: DeactivateReason | null;

  @Column({ type: 'text', nullable: true })
  deactivateComment: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  deactivatedAt: Date | null;

  /** The IGSNs (bare suffixes) a `duplicate igsn` deactivation named as the samples to keep. */
  @Column({ type: 'text', array: true, nullable: true })
  deactivateDuplicateIgsns: string[] | null;

  @Column({ type: 'integer', nullable: true })
  userOwnerId: number | null;

  @Column({ type: 'integer', nullable: true })
  teamOwnerId: number | null;

  @Column({ type: 'integer', nullable: true })
  batchId: number | null;

  @Column({ type: 'integer', nullable: true })
  createdBy: number | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** The ordered collectors of a sample (collector rows are shared between samples). */
@Entity('sample_collector')
export class SampleCollector {
  @PrimaryColumn({ type: 'bigint', transformer: numeric })
  sampleId: number;

  @PrimaryColumn({ type: 'smallint' })
  position: number;

  @Column({ type: 'integer' })
  collectorId: number;
}
