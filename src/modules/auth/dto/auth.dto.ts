import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { PAIR_ORIGINS } from '../token-pair.entity';

const SESSION_KIND_VALUES = ['session', 'connection'];

const EXAMPLE_ACCESS = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJhY2Nlc3MifQ.c2lnbmF0dXJl';
const EXAMPLE_REFRESH = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJyZWZyZXNoIn0.c2lnbmF0dXJl';

export class LoginRequest {
  @ApiProperty({ example: 'researcher@example.org' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;
}

export class RefreshRequest {
  /** The refresh token of the pair. */
  @ApiProperty({ example: EXAMPLE_REFRESH })
  @IsString()
  @IsNotEmpty()
  refresh: string;
}

export class ConnectionExchangeRequest {
  /** An OpenID Connect id_token issued by the connection's identity provider. */
  @ApiProperty({ example: EXAMPLE_ACCESS })
  @IsString()
  @IsNotEmpty()
  token: string;
}

export class TokenPairBody {
  @ApiProperty({ example: EXAMPLE_ACCESS })
  access: string;

  @ApiProperty({ example: EXAMPLE_REFRESH })
  refresh: string;
}

export class TokenPairResponse {
  data: TokenPairBody;
}

export class DeveloperTokenCreated {
  @ApiProperty({ format: 'uuid', example: '4d6e9d1c-5b8f-4d7a-9a53-0c2f1f0e7b11' })
  id: string;

  @ApiProperty({ example: EXAMPLE_ACCESS })
  access: string;

  @ApiProperty({ example: EXAMPLE_REFRESH })
  refresh: string;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at: string;

  /** When the refresh token expires (one year after creation by default). */
  @ApiProperty({ example: '2027-11-22T10:00:00.000Z' })
  expires_at: string;
}

export class DeveloperTokenCreatedResponse {
  data: DeveloperTokenCreated;
}

export class DeveloperTokenSummary {
  @ApiProperty({ format: 'uuid', example: '4d6e9d1c-5b8f-4d7a-9a53-0c2f1f0e7b11' })
  id: string;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ example: '2027-11-22T10:00:00.000Z' })
  expires_at: string;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-23T08:30:00.000Z' })
  last_used_at: string | null;
}

export class DeveloperTokenListResponse {
  data: DeveloperTokenSummary[];
}

export class MessageBody {
  @ApiProperty({ example: 'Token blacklisted.' })
  message: string;
}

export class MessageResponse {
  data: MessageBody;
}

export class RevokedCountBody {
  @ApiProperty({ example: 3 })
  revoked_count: number;
}

export class RevokedCountResponse {
  data: RevokedCountBody;
}

export class SessionSummary {
  @ApiProperty({ format: 'uuid', example: '8f14e45f-ceea-4d7a-9a53-0c2f1f0e7b11' })
  id: string;

  /** `session`: a sign-in (API login or the account pages); `connection`: issued to an integration connection. */
  @ApiProperty({ enum: SESSION_KIND_VALUES, example: 'session' })
  kind: string;

  /** The integration connection's name for `connection` pairs, otherwise null. */
  @ApiProperty({ nullable: true, type: String, example: null })
  connection: string | null;

  /**
   * Where it was issued: `api` (POST /api/auth/login/), `browser-password` or `browser-orcid` (the
   * account pages), `cli`; null when not recorded (connection pairs, older sessions).
   */
  @ApiProperty({ nullable: true, enum: [...PAIR_ORIGINS], type: String, example: 'browser-orcid' })
  origin: string | null;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at: string;

  /** When it ends unless revoked first (the refresh token's expiry). */
  @ApiProperty({ example: '2026-12-06T10:00:00.000Z' })
  expires_at: string;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-23T08:30:00.000Z' })
  last_used_at: string | null;

  /** Whether the token of this request belongs to it. */
  @ApiProperty({ example: true })
  current: boolean;
}

export class SessionListResponse {
  data: SessionSummary[];
}
