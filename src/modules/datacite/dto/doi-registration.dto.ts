import { ApiProperty } from '@nestjs/swagger';
import { SampleDoiStatus } from './sample-doi-status.dto';

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
}

export class DoiSummaryResponse {
  data: DoiSummaryDto;
}
