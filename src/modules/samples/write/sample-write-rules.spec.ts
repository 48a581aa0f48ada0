import { ApiError } from '../../../core/http/api-error';
import { LONG_TEXT_MAX, UpdateSampleDto } from '../dto/sample-write.dto';
import { Sample } from '../sample.entity';
import {
  completedReservation,
  publishedDraft,
  refuseImmutableChanges,
  refuseIncompleteNewSample,
  refuseReversedRanges,
  withAppended,
} from './sample-write-rules';

const now = new Date('2026-01-02T03:04:05Z');

function stored(overrides: Partial<Sample> = {}): Sample {
  return Object.assign(new Sample(), {
    id: 1,
    igsn: 'IEABC0001',
    registryCode: 'IEABC',
    latitude: 1,
    longitude: 2,
    objectTypeId: 3,
    metadataStoreStatus: 'published',
    batchId: null,
    publishDate: null,
    sampleDescription: 'stored',
    locationDescription: null,
    ...overrides,
  });
}

/** The field errors of the 400 `run` throws. */
function fieldErrors(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return ((error as ApiError).getResponse() as { errors: Record<string, string[]> }).errors;
  }
  throw new Error('no error was thrown');
}

describe('sample write rules', () => {
  it('publishes a new sample only with both coordinates; a draft has both or neither', () => {
    expect(fieldErrors(() => refuseIncompleteNewSample({ latitude: 1 }, 'published'))).toEqual({
      longitude: ['is required to publish a sample'],
    });
    expect(fieldErrors(() => refuseIncompleteNewSample({ longitude: 1 }, 'draft'))).toEqual({
      latitude: ['give both latitude and longitude, or neither'],
    });
    expect(() => refuseIncompleteNewSample({}, 'draft')).not.toThrow();
  });

  it('refuses what an update may not change, every field at once', () => {
    // A body may send null for any field; the DTO's types say what a valid one holds.
    const dto = {
      igsn: 'IEABC0002',
      registry_code: 'ieother',
      latitude: null,
      name: null,
    } as unknown as UpdateSampleDto;
    expect(Object.keys(fieldErrors(() => refuseImmutableChanges(stored(), dto, 'IEABC0002')))).toEqual([
      'igsn',
      'registry_code',
      'latitude',
      'name',
    ]);
    expect(() => refuseImmutableChanges(stored(), { igsn: '10.58052/IEABC0001' }, 'IEABC0001')).not.toThrow();
    expect(fieldErrors(() => refuseImmutableChanges(stored(), { is_draft: true }, undefined))).toEqual({
      is_draft: ['a sample that is not a draft cannot become one again'],
    });
  });

  it('refuses a range whose low end exceeds its high end, after the write', () => {
    expect(fieldErrors(() => refuseReversedRanges({ depthMin: 5, depthMax: 2 }))).toEqual({
      depth_max: ['must not be less than depth_min'],
    });
    expect(() => refuseReversedRanges({ depthMin: 5, depthMax: null })).not.toThrow();
  });

  it('completes a reserved sample as a draft, for review, or published', () => {
    const reserved = stored({ metadataStoreStatus: 'reserved', latitude: null, longitude: null });
    expect(completedReservation(reserved, {}, true, undefined, now)).toEqual({ metadataStoreStatus: 'draft' });
    expect(fieldErrors(() => completedReservation(reserved, {}, false, undefined, now))).toEqual({
      latitude: ['is required to publish a sample'],
      longitude: ['is required to publish a sample'],
    });
    const located = { latitude: 1, longitude: 2 };
    expect(completedReservation(reserved, located, false, 'pending-review', now)).toEqual({
      metadataStoreStatus: 'pending-review',
    });
    expect(completedReservation(reserved, located, false, undefined, now)).toEqual({
      metadataStoreStatus: 'published',
      publishDate: now,
    });
  });

  it("publishes a draft, except a batch's, which goes to review", () => {
    const draft = stored({ metadataStoreStatus: 'draft' });
    expect(publishedDraft(draft, {}, now)).toEqual({ metadataStoreStatus: 'published', publishDate: now });
    expect(publishedDraft(stored({ metadataStoreStatus: 'draft', batchId: 9 }), {}, now)).toEqual({
      metadataStoreStatus: 'pending-review',
    });
  });

  it('appends after a blank line to the sent value, else the stored one, within the length limit', () => {
    expect(withAppended(stored(), {}, { sample_description: 'more' }).sample_description).toBe('stored\n\nmore');
    expect(
      withAppended(stored(), { sample_description: 'sent' }, { sample_description: 'more' }).sample_description,
    ).toBe('sent\n\nmore');
    expect(withAppended(stored(), {}, { location_description: 'first' }).location_description).toBe('first');
    const long = 'x'.repeat(LONG_TEXT_MAX);
    expect(Object.keys(fieldErrors(() => withAppended(stored(), {}, { sample_description: long })))).toEqual([
      'sample_description',
    ]);
  });
});
