import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, ValidateIf } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { TrimToNull } from '../../../core/http/trim';
import { DEACTIVATE_REASONS, DeactivateReason } from '../sample.entity';

const REASONS = DEACTIVATE_REASONS.join('; ');
const Nullable = () => ValidateIf((_object, value) => value !== null);

/** The most IGSNs one `duplicate igsn` deactivation may name. */
export const MAX_DUPLICATE_IGSNS = 1000;

/**
 * POST /api/samples/{igsn}/deactivate/: our `{reason, comment}` or SESAR2's `{deactivate_reason,
 * other_reason, duplicate_igsns}`. One of `reason` and `deactivate_reason` is required
 * (SampleDeactivation checks it, and what SESAR2's shape requires beside each reason).
 */
export class SampleDeactivationDto {
  @ApiPropertyOptional({ enum: DEACTIVATE_REASONS, example: 'duplicate igsn' })
  @IsOptional()
  @IsIn(DEACTIVATE_REASONS, { message: `reason must be one of: ${REASONS}` })
  reason?: DeactivateReason;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 5000 })
  @IsOptional()
  @TrimToNull()
  @Nullable()
  @IsString()
  @MaxLength(5000)
  comment?: string | null;

  /** SESAR2's name for `reason`. */
  @ApiPropertyOptional({ enum: DEACTIVATE_REASONS, example: 'duplicate igsn' })
  @IsOptional()
  @IsIn(DEACTIVATE_REASONS, { message: `deactivate_reason must be one of: ${REASONS}` })
  deactivate_reason?: DeactivateReason;

  /** Why, when `deactivate_reason` is `other` (required then). Stored as the comment. */
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 250, example: 'Sample lost in transit.' })
  @IsOptional()
  @TrimToNull()
  @Nullable()
  @IsString()
  @MaxLength(250)
  other_reason?: string | null;

  /** The registered samples this one duplicates (any IGSN form), when the reason is `duplicate igsn`. */
  @ApiPropertyOptional({ type: [String], maxItems: MAX_DUPLICATE_IGSNS, example: ['10.5072/IEABC0002'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_DUPLICATE_IGSNS)
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  duplicate_igsns?: string[];
}
