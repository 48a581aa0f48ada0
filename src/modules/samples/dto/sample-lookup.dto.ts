import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DEACTIVATE_REASONS } from '../sample.entity';
import { SampleDto } from './sample.dto';

/** What remains of a deactivated sample: the 410 answer of both lookups carries it, never the sample's fields. */
export class SampleTombstone {
  @ApiProperty({ example: '10.5072/IEABC0001' })
  igsn: string;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T10:00:00.000Z' })
  deactivation_date: string | null;
  @ApiProperty({ nullable: true, enum: DEACTIVATE_REASONS, example: 'duplicate igsn' })
  deactivate_reason: string | null;
  /** For `duplicate igsn`: the samples to use instead (DOI form). */
  @ApiProperty({ type: [String], example: ['10.5072/IEABC0002'] })
  duplicate_igsns: string[];
}

/** The 410 body: the error envelope with the tombstone beside it. */
export class SampleGoneBody {
  @ApiProperty({ example: 'Sample 10.5072/IEABC0001 was deactivated.' })
  message: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, example: {} })
  errors: Record<string, string[]>;
  tombstone: SampleTombstone;
}

/** One IGSN of a lookup of several: its status as a lookup of it alone would answer, and its body. */
export class SampleLookup {
  /** The IGSN as asked. */
  @ApiProperty({ example: 'IEABC0001' })
  igsn: string;
  @ApiProperty({ enum: [200, 401, 403, 404, 410], example: 200 })
  status: 200 | 401 | 403 | 404 | 410;
  @ApiPropertyOptional({ type: SampleDto, description: 'With status 200.' })
  data?: SampleDto;
  @ApiPropertyOptional({ example: 'Sample not found.', description: 'With every other status.' })
  message?: string;
  @ApiPropertyOptional({ type: SampleTombstone, description: 'With status 410.' })
  tombstone?: SampleTombstone;
}

export class SampleLookupListResponse {
  @ApiProperty({ type: [SampleLookup] })
  data: SampleLookup[];
}
