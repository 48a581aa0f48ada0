import { ApiProperty } from '@nestjs/swagger';

/** How the caller holds a registry code: as its owner, through a team role, or as staff. */
export const REGISTRY_CODE_ROLES = ['owner', 'manager', 'editor', 'viewer', 'staff'] as const;
export type RegistryCodeRole = (typeof REGISTRY_CODE_ROLES)[number];

/** What `GET /api/sesar-codes/by-permission/` asks about. */
export const SAMPLE_PERMISSIONS = ['create_sample', 'edit_sample', 'view_sample'] as const;
export type SamplePermission = (typeof SAMPLE_PERMISSIONS)[number];

export class RegistryCodeTeam {
  @ApiProperty({ example: 4 })
  id: number;
  @ApiProperty({ example: 'Core lab' })
  name: string;
}

/** A registry code as its users read it (SESAR2 calls it a SESAR code: both names carry it). */
export class RegistryCodeAccessDto {
  @ApiProperty({ example: 'IEABC' })
  code: string;
  @ApiProperty({ example: 'IEABC', description: "SESAR2's name for `code`." })
  sesar_code: string;
  @ApiProperty({ enum: REGISTRY_CODE_ROLES, example: 'owner', description: 'How the caller holds the code.' })
  role: RegistryCodeRole;
  @ApiProperty({ type: RegistryCodeTeam, nullable: true, description: 'The owning team, for a team code.' })
  team: RegistryCodeTeam | null;
  @ApiProperty({
    enum: SAMPLE_PERMISSIONS,
    isArray: true,
    example: ['create_sample', 'edit_sample', 'view_sample'],
    description: "What the caller may do with the code's samples.",
  })
  permissions: SamplePermission[];
}

export class RegistryCodeAccessListResponse {
  @ApiProperty({ type: [RegistryCodeAccessDto] })
  data: RegistryCodeAccessDto[];
}
