import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { Trim } from '../../../core/http/trim';
import { ACCOUNT_REQUEST_KINDS, ACCOUNT_REQUEST_STATUSES } from '../account-request.entity';

export const REASON_MAX_LENGTH = 2000;
export const MESSAGE_MAX_LENGTH = 2000;

/** POST /api/api-access-request/ (SESAR2's path) and POST /api/access-requests/: ask for upload permission. */
export class AccessRequestInput {
  /** Why you need to register samples: your project, institution, the samples you will register. */
  @ApiProperty({ example: 'Registering the cores of cruise AT42 for the Woods Hole core lab.', maxLength: 2000 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(REASON_MAX_LENGTH)
  reason: string;
}

/** POST /api/registry-code-requests/: ask for a registry code, for yourself or a team you manage. */
export class RegistryCodeRequestInput {
  /** `IE` followed by 3 letters or digits (any letter case); stored upper case. */
  @ApiProperty({ example: 'IEWHC', maxLength: 5 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(5)
  code: string;

  /** The name of a team you manage, to have the team own the code; leave out for a code of your own. */
  @ApiPropertyOptional({ example: 'Core lab', maxLength: 100 })
  @IsOptional()
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  team?: string;

  @ApiProperty({ example: 'Samples of the Woods Hole core lab, about 400 a year.', maxLength: 2000 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(REASON_MAX_LENGTH)
  reason: string;
}

/** POST …/{id}/approve/: an optional note for the requester. */
export class ApproveRequestInput {
  @ApiPropertyOptional({ example: 'Welcome aboard.', maxLength: 2000 })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(MESSAGE_MAX_LENGTH)
  message?: string;
}

/** POST …/{id}/refuse/: the requester is told why. */
export class RefuseRequestInput {
  @ApiProperty({ example: 'Please ask with your institutional account.', maxLength: 2000 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MESSAGE_MAX_LENGTH)
  message: string;
}

export class RequesterDto {
  @ApiProperty({ type: 'integer', example: 12 })
  id: number;

  @ApiProperty({ nullable: true, type: String, example: 'Marie Tharp' })
  name: string | null;

  /** Null for an account made by ORCID sign-in without an address. */
  @ApiProperty({ nullable: true, type: String, example: 'marie@example.org' })
  email: string | null;

  @ApiProperty({ nullable: true, type: String, example: '0000-0002-1825-0097' })
  orcid: string | null;
}

export class RequestTeamDto {
  @ApiProperty({ type: 'integer', example: 3 })
  id: number;

  @ApiProperty({ example: 'Core lab' })
  name: string;
}

export class AccountRequestDto {
  @ApiProperty({ type: 'integer', example: 7 })
  id: number;

  @ApiProperty({ enum: ACCOUNT_REQUEST_KINDS, example: 'upload_permission' })
  kind: string;

  @ApiProperty({ enum: ACCOUNT_REQUEST_STATUSES, example: 'pending' })
  status: string;

  @ApiProperty({ example: 'Registering the cores of cruise AT42.' })
  reason: string;

  /** The registry code asked for (registry-code requests), else null. */
  @ApiProperty({ nullable: true, type: String, example: null })
  code: string | null;

  /** The team the code is for; null: for the requester. */
  @ApiProperty({ nullable: true, type: RequestTeamDto, example: null })
  team: RequestTeamDto | null;

  requester: RequesterDto;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ nullable: true, type: String, example: null })
  decided_at: string | null;

  /** The curator who decided, by name. */
  @ApiProperty({ nullable: true, type: String, example: null })
  decided_by: string | null;

  /** What the curator said to the requester. */
  @ApiProperty({ nullable: true, type: String, example: null })
  decision_message: string | null;
}

export class AccountRequestResponse {
  data: AccountRequestDto;
}

export class AccountRequestListResponse {
  @ApiProperty({ type: 'integer', example: 1 })
  count: number;
  @ApiProperty({ nullable: true, type: String })
  next: string | null;
  @ApiProperty({ nullable: true, type: String })
  previous: string | null;
  @ApiProperty({ type: 'integer', example: 1 })
  current_page: number;
  @ApiProperty({ type: 'integer', example: 1 })
  total_pages: number;
  @ApiProperty({ type: 'integer', example: 25 })
  page_size: number;
  data: AccountRequestDto[];
}
