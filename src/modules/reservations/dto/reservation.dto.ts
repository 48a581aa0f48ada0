import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';

/** IGSNs one reservation may mint. */
export const RESERVE_MAX = 10_000;

export class ReserveSamplesDto {
  /** The registry code to mint under (one you may register under). */
  @ApiProperty({ example: 'IEABC' })
  @IsString()
  @MinLength(3)
  @MaxLength(5)
  registry_code: string;

  /** How many IGSNs to reserve. */
  @ApiProperty({ minimum: 1, maximum: RESERVE_MAX, example: 50 })
  @IsInt({ message: 'count must be a whole number' })
  @Min(1)
  @Max(RESERVE_MAX)
  count: number;

  /** The reserved samples are named `<name_prefix> <IGSN>` until they are described (default `Reserved`). */
  @ApiPropertyOptional({ example: 'Cruise KN-2027', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name_prefix?: string;
}

export class Reservation {
  @ApiProperty({ example: 'IEABC' })
  registry_code: string;

  @ApiProperty({ example: 50 })
  count: number;

  /** The reserved IGSNs (DOI form), in minting order; null while a background job mints them. */
  @ApiProperty({ type: [String], nullable: true, example: ['10.5072/IEABC0001', '10.5072/IEABC0002'] })
  igsns: string[] | null;

  /** Above 1,000 IGSNs: the `sample_reservation` job minting them (its result lists them). */
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null })
  job_id: string | null;
}

export class ReservationResponse {
  data: Reservation;
}
