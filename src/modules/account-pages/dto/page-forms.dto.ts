import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { Trim } from '../../../core/http/trim';
import { MESSAGE_MAX_LENGTH, REASON_MAX_LENGTH } from '../../account-requests/dto/account-request.dto';

/**
 * The account pages' form bodies (application/x-www-form-urlencoded), validated by the global pipe
 * like any JSON body: unknown fields are refused. Every form carries `csrf`, which AccountPageGuard
 * checks before the pipe runs.
 */
export class CsrfForm {
  @IsString()
  @MaxLength(200)
  csrf: string;
}

export class SignInForm extends CsrfForm {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  email: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;
}

export class AccessRequestForm extends CsrfForm {
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(REASON_MAX_LENGTH)
  reason: string;
}

export class CodeRequestForm extends CsrfForm {
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(5)
  code: string;

  /** A team's name; empty: for the requester. */
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(100)
  team?: string;

  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(REASON_MAX_LENGTH)
  reason: string;
}

export class DecisionForm extends CsrfForm {
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(MESSAGE_MAX_LENGTH)
  message?: string;
}
