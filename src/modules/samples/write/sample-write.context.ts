import { UpdateSampleDto } from '../dto/sample-write.dto';
import { SampleReferenceLookups } from '../sample-references';
import { Sample, StoreStatus } from '../sample.entity';

/** Columns a write sets, plus the collectors list when it was sent. */
export interface ResolvedWrite {
  columns: Partial<Sample>;
  collectorIds?: number[];
  /** The related resource objects the sample links to, when `related_resources` was sent. */
  relatedResourceIds?: number[];
}

/** Between a stored text and the text appended to it: a blank line, as between paragraphs. */
export const TEXT_APPEND_SEPARATOR = '\n\n';

/** The free-text fields a write may append to instead of replacing. */
export const APPENDABLE_FIELDS = [
  ['sample_description', 'sampleDescription'],
  ['location_description', 'locationDescription'],
] as const satisfies readonly (readonly [keyof UpdateSampleDto, keyof Sample])[];
export type AppendableField = (typeof APPENDABLE_FIELDS)[number][0];

/**
 * Who writes a sample, and what that channel adds to the one write pipeline (SampleWriter). The
 * channels differ only here: the JSON API sends nothing more; legacy XML keeps its SESAR 1.0 sample
 * type and may append text; a batch brings its memoized references and, for reserved samples it
 * completes, the state its new samples take.
 */
export type SampleWriteContext =
  | { channel: 'json' }
  | {
      channel: 'xml';
      /** The SESAR 1.0 sample type (and subtype) the object type was mapped from, kept on the sample. */
      legacySampleType?: string;
      /** Update only: text appended, after a blank line, to the field's value (the stored one unless the body sets it). */
      append?: Partial<Record<AppendableField, string>>;
    }
  | {
      channel: 'batch';
      /** A memoized copy: each distinct reference is looked up once per batch. */
      references: SampleReferenceLookups;
      /** What a reserved sample a row writes to becomes (`draft` or `pending-review`) instead of being published. */
      completeReservedAs?: StoreStatus;
    };

export type SampleWriteChannel = SampleWriteContext['channel'];

export const JSON_WRITE: SampleWriteContext = { channel: 'json' };

/** The rules that follow from a channel. */
export interface ChannelRules {
  /** Check that a supplied IGSN is free while preparing (a batch checks all of its IGSNs in one query). */
  checksSuppliedIgsn: boolean;
  /** Accept deprecated material types: legacy XML, whose documents name the SESAR 1.0 terms. */
  allowsRetiredMaterialTypes: boolean;
  /**
   * Check that a new sample's external id is free while preparing it (a batch checks those of many
   * rows in one statement: SampleWriter.takenExternalIds).
   */
  checksExternalIdOfNew: boolean;
}

export const CHANNEL_RULES: Readonly<Record<SampleWriteChannel, ChannelRules>> = {
  json: { checksSuppliedIgsn: true, allowsRetiredMaterialTypes: false, checksExternalIdOfNew: true },
  xml: { checksSuppliedIgsn: true, allowsRetiredMaterialTypes: true, checksExternalIdOfNew: true },
  batch: { checksSuppliedIgsn: false, allowsRetiredMaterialTypes: false, checksExternalIdOfNew: false },
};
