import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsOptional,
  IsString,
} from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { TRANSFER_STATUSES, TransferStatus } from '../ownership-transfer.repository';

/** Samples one transfer may name by IGSN. */
export const TRANSFER_MAX_IGSNS = 10_000;

/**
 * A transfer: to a user (by email) or a team (by id or name); of samples named by IGSN, all of the
 * sender's samples under a registry code, or all of the sender's samples; with a message.
 */
export class CreateTransferDto {
  @ApiPropertyOptional({ example: 'colleague@example.org' })
  @IsOptional()
  @IsEmail({}, { message: 'to_user_email must be an e-mail address' })
  @MaxLength(255)
  to_user_email?: string;

  /** The receiving team: its id, or its name. */
  @ApiPropertyOptional({ oneOf: [{ type: 'integer' }, { type: 'string' }], example: 'Core repository' })
  @IsOptional()
  to_team?: number | string;

  @ApiPropertyOptional({ type: [String], maxItems: TRANSFER_MAX_IGSNS, example: ['10.5072/IEABC0001'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TRANSFER_MAX_IGSNS)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  igsns?: string[];

  @ApiPropertyOptional({ example: 'IEABC' })
  @IsOptional()
  @IsString()
  @MaxLength(5)
  registry_code?: string;

  /** Every sample the sender owns. */
  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean()
  all_of_mine?: boolean;

  /** Staff only: whose samples to transfer (someone who left); the sender otherwise. */
  @ApiPropertyOptional({ example: 'former.colleague@example.org' })
  @IsOptional()
  @IsEmail({}, { message: 'from_user_email must be an e-mail address' })
  @MaxLength(255)
  from_user_email?: string;

  @ApiPropertyOptional({ example: 'The cores of the 2024 cruise, now curated by your lab.' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  message?: string;
}

export class TransferDecisionDto {
  /** Why (shown to the other side). */
  @ApiPropertyOptional({ example: 'We do not curate dredge samples.' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  message?: string;
}

export class TransferParty {
  @ApiProperty({ nullable: true, type: Number, example: 7 })
  user_id: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'colleague@example.org' })
  email: string | null;
  @ApiProperty({ nullable: true, type: Number, example: null })
  team_id: number | null;
  @ApiProperty({ nullable: true, type: String, example: null })
  team_name: string | null;
}

export class TransferDto {
  @ApiProperty({ example: 12 })
  id: number;

  /** pending → accepted | rejected | cancelled; `accepting` while a background job moves a large one. */
  @ApiProperty({ enum: TRANSFER_STATUSES })
  status: TransferStatus;

  @ApiProperty({ type: TransferParty })
  from: TransferParty;

  @ApiProperty({ type: TransferParty })
  to: TransferParty;

  /** What was asked for, as sent: `igsns` (count only), `registry_code` or `all_of_mine`. */
  @ApiProperty({ type: 'object', additionalProperties: true, example: { registry_code: 'IEABC' } })
  selection: Record<string, unknown>;

  @ApiProperty({ nullable: true, type: String })
  message: string | null;

  /** Samples the transfer offers (fixed when it was made). */
  @ApiProperty({ example: 120 })
  sample_count: number;

  /** Made by staff: moved at once, without acceptance. */
  @ApiProperty({ example: false })
  direct: boolean;

  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ nullable: true, type: Number })
  decided_by: number | null;

  @ApiProperty({ nullable: true, type: String })
  decided_at: string | null;

  @ApiProperty({ nullable: true, type: String })
  decision_message: string | null;

  /** The background job that moves a large transfer (GET /api/jobs/{id}/ for its progress). */
  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  job_id: string | null;

  /** Samples moved when accepted, and those skipped because they were no longer the sender's. */
  @ApiProperty({ nullable: true, type: Number })
  moved_count: number | null;

  @ApiProperty({ nullable: true, type: Number })
  skipped_count: number | null;
}

export class TransferResponse {
  data: TransferDto;
}

export class TransferListResponse {
  @ApiProperty() count: number;
  @ApiProperty({ nullable: true, type: String }) next: string | null;
  @ApiProperty({ nullable: true, type: String }) previous: string | null;
  @ApiProperty() current_page: number;
  @ApiProperty() total_pages: number;
  @ApiProperty() page_size: number;
  @ApiProperty({ type: [TransferDto] }) data: TransferDto[];
}
