import { ApiError } from '../../../core/http/api-error';
import { FieldErrors } from '../../../core/http/error-body';
import { LONG_TEXT_MAX, UpdateSampleDto } from '../dto/sample-write.dto';
import { Sample, StoreStatus } from '../sample.entity';
import { APPENDABLE_FIELDS, AppendableField, TEXT_APPEND_SEPARATOR } from './sample-write.context';

/*
 * The rules of a sample write that need no database: what may change, what publishing needs, how
 * appended text joins. SampleWriter applies them as steps of its pipeline.
 */

/** 400 listing every field in `errors`, when there is any. */
export function refuseFieldErrors(errors: FieldErrors): void {
  const fields = Object.keys(errors);
  if (fields.length) throw ApiError.badRequest(`Validation failed: ${fields.join(', ')}.`, errors);
}

const isUnset = (value: unknown): boolean => value === null || value === undefined;

/**
 * The update with each appended text joined to the field's value: the body's when it sets the field,
 * otherwise the stored one (read under the row lock, so concurrent appends all survive). 400 when the
 * result would exceed the field's length limit.
 */
export function withAppended(
  sample: Sample,
  dto: UpdateSampleDto,
  append: Partial<Record<AppendableField, string>> = {},
): UpdateSampleDto {
  const result: UpdateSampleDto = { ...dto };
  const errors: FieldErrors = {};
  for (const [field, column] of APPENDABLE_FIELDS) {
    const text = append[field];
    if (text === undefined || text === '') continue;
    const base = dto[field] !== undefined ? dto[field] : sample[column];
    const joined = base ? `${base}${TEXT_APPEND_SEPARATOR}${text}` : text;
    if (joined.length > LONG_TEXT_MAX) {
      errors[field] = [`appending the text would make it longer than ${LONG_TEXT_MAX} characters`];
    }
    result[field] = joined;
  }
  refuseFieldErrors(errors);
  return result;
}

/** A new sample is published only with coordinates; a draft has both or neither. */
export function refuseIncompleteNewSample(columns: Partial<Sample>, status: StoreStatus): void {
  const errors: FieldErrors = {};
  if (status !== 'draft') {
    for (const field of ['latitude', 'longitude'] as const) {
      if (isUnset(columns[field])) errors[field] = ['is required to publish a sample'];
    }
  } else if (isUnset(columns.latitude) !== isUnset(columns.longitude)) {
    errors[isUnset(columns.latitude) ? 'latitude' : 'longitude'] = ['give both latitude and longitude, or neither'];
  }
  refuseFieldErrors(errors);
}

/**
 * What an update may not do to `sample`: change its IGSN (`sentIgsn` parsed) or registry code, clear
 * coordinates, name or object type, or turn a sample that is no draft back into one.
 */
export function refuseImmutableChanges(sample: Sample, dto: UpdateSampleDto, sentIgsn: string | undefined): void {
  const errors: FieldErrors = {};
  if (dto.igsn !== undefined && sentIgsn !== sample.igsn) errors.igsn = ['cannot be changed'];
  for (const field of ['registry_code', 'sesar_code'] as const) {
    const value = dto[field];
    if (value !== undefined && value.toUpperCase() !== sample.registryCode) errors[field] = ['cannot be changed'];
  }
  for (const field of ['latitude', 'longitude'] as const) {
    if (dto[field] === null && sample[field] !== null) errors[field] = ['cannot be cleared once set'];
  }
  if (dto.name === null || dto.object_type === null) {
    errors[dto.name === null ? 'name' : 'object_type'] = ['cannot be cleared'];
  }
  if (dto.is_draft === true && sample.metadataStoreStatus !== 'draft' && sample.metadataStoreStatus !== 'reserved') {
    errors.is_draft = ['a sample that is not a draft cannot become one again'];
  }
  refuseFieldErrors(errors);
}

/** 400 when a range's low end (as stored after the write) exceeds its high end. */
export function refuseReversedRanges(merged: Partial<Sample>): void {
  const errors: FieldErrors = {};
  const ordered = (min: keyof Sample, max: keyof Sample, field: string) => {
    const low = merged[min] as number | Date | null | undefined;
    const high = merged[max] as number | Date | null | undefined;
    if (!isUnset(low) && !isUnset(high) && Number(low) > Number(high)) {
      errors[field] = [`must not be less than ${String(min).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`];
    }
  };
  ordered('numericAgeMin', 'numericAgeMax', 'numeric_age_max');
  ordered('depthMin', 'depthMax', 'depth_max');
  ordered('samplingStartDate', 'samplingEndDate', 'sampling_end_date');
  refuseFieldErrors(errors);
}

/**
 * A reserved sample written to (PATCH, a batch row naming its IGSN, legacy XML update) is completed:
 * it becomes a draft (`is_draft: true`) or is published, by the rules of a registration — an object
 * type in both cases, coordinates to publish. 400 naming what is missing; it never stays half-reserved.
 */
export function completedReservation(
  sample: Sample,
  columns: Partial<Sample>,
  asDraft: boolean,
  completeAs: StoreStatus | undefined,
  now: Date,
): Partial<Sample> {
  const merged = { ...sample, ...columns };
  const errors: FieldErrors = {};
  if (merged.objectTypeId === null) errors.object_type = ['is required to complete a reserved sample'];
  if (!asDraft) {
    for (const field of ['latitude', 'longitude'] as const) {
      if (merged[field] === null) errors[field] = ['is required to publish a sample'];
    }
  } else if ((merged.latitude === null) !== (merged.longitude === null)) {
    errors[merged.latitude === null ? 'latitude' : 'longitude'] = ['give both latitude and longitude, or neither'];
  }
  refuseFieldErrors(errors);
  if (asDraft) return { metadataStoreStatus: 'draft' };
  if (completeAs === 'pending-review') return { metadataStoreStatus: 'pending-review' };
  return { metadataStoreStatus: 'published', publishDate: merged.publishDate ?? now };
}

/**
 * A draft an update publishes (`is_draft: false`): it needs coordinates; a batch's draft goes where
 * the batch's submit-for-review sends it, so curation cannot be skipped.
 */
export function publishedDraft(sample: Sample, columns: Partial<Sample>, now: Date): Partial<Sample> {
  const merged = { ...sample, ...columns };
  const missing = (['latitude', 'longitude'] as const).filter((field) => merged[field] === null);
  refuseFieldErrors(Object.fromEntries(missing.map((field) => [field, ['is required to publish a sample']])));
  if (sample.batchId !== null) return { metadataStoreStatus: 'pending-review' };
  return { metadataStoreStatus: 'published', publishDate: merged.publishDate ?? now };
}
