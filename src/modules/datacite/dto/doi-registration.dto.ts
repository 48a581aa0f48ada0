import { ApiProperty } from '@nestjs/swagger';
import { SampleDoiStatus } from '../../samples';

export class DoiSyncResult {
  @ApiProperty({ example: '10.5072/IEABC0001' })
  igsn: string;
  doi: SampleDoiStatus;
}

export class DoiSyncResponse {
  data: DoiSyncResult;
}

/** Progress of DOI registration across the registry. */
export class DoiSummaryDto {
  /** Whether DataCite registration is configured. */
  @ApiProperty({ example: true })
  enabled: boolean;
  /** Samples whose latest state DataCite does not have yet. */
  @ApiProperty({ example: 1200 })
  pending: number;
  /** Of those, interactive changes (JSON API, small batches, one re-send): sent first. */
  @ApiProperty({ example: 2 })
  pending_interactive: number;
  /** Of those, bulk work (large batches, agent renames touching many samples, re-sending all failed). */
  @ApiProperty({ example: 1198 })
  pending_bulk: number;
  /** Of those, samples waiting for a retry after a failed delivery. */
  @ApiProperty({ example: 0 })
  retrying: number;
  @ApiProperty({ example: 48800 })
  findable: number;
  @ApiProperty({ example: 12 })
  registered: number;
  @ApiProperty({ example: 0 })
  failed: number;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T10:00:00.000Z' })
  oldest_pending_since: string | null;
  /** Seconds since the oldest pending change; null when nothing is pending. */
  @ApiProperty({ nullable: true, type: Number, example: 3600 })
  oldest_pending_age_seconds: number | null;
  /** Hours the backlog takes at the configured budget (interactive at the whole budget, bulk at its share). */
  @ApiProperty({ example: 0.2 })
  estimated_hours_to_drain: number;
  budget: DoiBudgetDto;
}

/** The DataCite request budget all workers share, and how it is being used. */
export class DoiBudgetDto {
  /** DATACITE_REQUESTS_PER_5_MIN: every request counts against it. */
  @ApiProperty({ example: 2500 })
  requests_per_5_min: number;
  /** DATACITE_BULK_REQUESTS_PER_5_MIN: the most bulk work may use. */
  @ApiProperty({ example: 500 })
  bulk_requests_per_5_min: number;
  /** Requests made in the last 5 minutes, by every worker. */
  @ApiProperty({ example: 620 })
  used_last_5_min: number;
  @ApiProperty({ example: 500 })
  bulk_used_last_5_min: number;
  /** What is left of the budget over the last 5 minutes (all requests / bulk ones). */
  @ApiProperty({ example: 1880 })
  left: number;
  @ApiProperty({ example: 0 })
  bulk_left: number;
  /** Samples DataCite accepted in the last 5 minutes, per minute. */
  @ApiProperty({ example: 124 })
  delivery_rate_per_minute: number;
  /** While DataCite is unreachable or asked us to wait (429): nothing is sent before this moment. */
  @ApiProperty({ nullable: true, type: String, example: null })
  paused_until: string | null;
}

export class DoiSummaryResponse {
  data: DoiSummaryDto;
}
