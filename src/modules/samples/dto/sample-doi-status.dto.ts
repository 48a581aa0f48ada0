import { ApiProperty } from '@nestjs/swagger';

export const DOI_STATES = ['disabled', 'pending', 'findable', 'registered', 'failed'] as const;
export type DoiState = (typeof DOI_STATES)[number];

/**
 * Where a sample's DOI stands at DataCite. Part of the sample's own JSON, so it lives with the
 * sample DTOs; the datacite module writes the state and reads it back through this type.
 */
export class SampleDoiStatus {
  /**
   * `disabled`: registration is not configured. `pending`: DataCite does not have the sample's
   * latest state yet (waiting for delivery or a retry, or for the sample to become public).
   * `findable`: registered and findable. `registered`: registered but hidden (deactivated, or no
   * longer public). `failed`: DataCite rejected the metadata (see `error`); the next change or a
   * staff re-send tries again.
   */
  @ApiProperty({ enum: DOI_STATES, example: 'findable' })
  state: DoiState;
  /** When the state last changed. */
  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T10:00:05.000Z' })
  updated_at: string | null;
  /** DataCite's message for a rejected request, or the last delivery problem while retrying. */
  @ApiProperty({ nullable: true, type: String, example: null })
  error: string | null;
}

/** The visible status from the stored row (null for a sample the outbox has no row for yet). */
export function sampleDoiStatus(
  stored: { state: string | null; updatedAt: Date | null; error: string | null },
  registrationEnabled: boolean,
): SampleDoiStatus {
  if (!registrationEnabled) return { state: 'disabled', updated_at: null, error: null };
  return {
    state: (stored.state as DoiState | null) ?? 'pending',
    updated_at: stored.updatedAt ? stored.updatedAt.toISOString() : null,
    error: stored.error,
  };
}
