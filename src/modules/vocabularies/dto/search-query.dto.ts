import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export class SearchQueryDto {
  /** Case- and accent-insensitive substring of the label (or alternative label); best matches first. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}

export class LimitedSearchQueryDto extends SearchQueryDto {
  /** Most rows returned (default 20, at most 100). */
  @ApiProperty({ type: 'integer', required: false, default: DEFAULT_LIMIT, minimum: 1, maximum: MAX_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;
}
