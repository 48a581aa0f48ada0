import { ApiProperty } from '@nestjs/swagger';
import { Individual } from '../../agents/individual.entity';
import { User } from '../user.entity';

export class UserIndividual {
  @ApiProperty({ example: 12 })
  id: number;

  @ApiProperty({ nullable: true, type: String, example: 'Marie Tharp' })
  label: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'Marie' })
  fname: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'Tharp' })
  lname: string | null;

  @ApiProperty({ nullable: true, type: String })
  alt_label: string | null;

  @ApiProperty({ nullable: true, type: String })
  description: string | null;

  @ApiProperty({ nullable: true, type: String })
  address: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'marie@example.org' })
  email: string | null;

  @ApiProperty({ nullable: true, type: String })
  phone: string | null;

  @ApiProperty({ nullable: true, type: String })
  fax: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'https://orcid.org/0000-0002-1825-0097' })
  individual_uri: string | null;

  @ApiProperty({ type: 'array', items: { type: 'object' }, example: [] })
  institutions: unknown[];

  @ApiProperty({ nullable: true, type: String })
  institution_detail: string | null;

  @ApiProperty({ nullable: true, type: String })
  country: string | null;

  @ApiProperty({ example: true })
  can_edit: boolean;
}

/** The RegistryUser shape of the specification. */
export class RegistryUser {
  individual: UserIndividual | null;

  /** Null for an account made by signing in with ORCID when ORCID gave no verified address. */
  @ApiProperty({ nullable: true, type: String, example: 'marie@example.org' })
  email: string | null;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  registration_date: string;

  @ApiProperty({ nullable: true, type: String, example: '0000-0002-1825-0097' })
  orcid: string | null;

  @ApiProperty({ example: '10.5072' })
  doi_prefix: string;

  /** 1: may upload and generate developer tokens. */
  @ApiProperty({ nullable: true, type: Number, example: 1 })
  upload_permission_status: number | null;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { batch_feedback: 'email' } })
  notification_preferences: Record<string, unknown>;

  @ApiProperty({ example: false })
  is_staff: boolean;

  /** 1 for administrators, 0 otherwise. */
  @ApiProperty({ example: 0 })
  is_admin: number;

  @ApiProperty({ format: 'int64', example: 0 })
  storage_used: number;

  @ApiProperty({ format: 'int64', example: 10737418240 })
  storage_limit: number;
}

export class UserDetails {
  user: RegistryUser;

  /** The integration connection the token was issued for; null for session and developer tokens. */
  @ApiProperty({ nullable: true, type: String, example: null })
  jwt_connection: string | null;
}

export class UserDetailsResponse {
  data: UserDetails;
}

function serializeIndividual(individual: Individual, viewerUserId: number): UserIndividual {
  return {
    id: individual.id,
    label: individual.label,
    fname: individual.fname,
    lname: individual.lname,
    alt_label: individual.altLabel,
    description: individual.description,
    address: individual.address,
    email: individual.email,
    phone: individual.phone,
    fax: individual.fax,
    individual_uri: individual.individualUri,
    institutions: [],
    institution_detail: individual.institutionDetail,
    country: null,
    can_edit: individual.createdBy === null || individual.createdBy === viewerUserId,
  };
}

export function serializeRegistryUser(user: User, doiPrefix: string): RegistryUser {
  return {
    individual: user.individual ? serializeIndividual(user.individual, user.id) : null,
    email: user.email,
    registration_date: user.registrationDate.toISOString(),
    orcid: user.orcid,
    doi_prefix: doiPrefix,
    upload_permission_status: user.uploadPermissionStatus,
    notification_preferences: user.notificationPreferences,
    is_staff: user.isStaff,
    is_admin: user.isAdmin ? 1 : 0,
    storage_used: user.storageUsed,
    storage_limit: user.storageLimit,
  };
}
