import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A registry code (the IGSN namespace a user or team registers under): `IE` + 3 of [A-Z0-9], or a
 * legacy 3-character code. Stored upper case; owned by exactly one user or one team.
 */
@Entity('registry_code')
export class RegistryCode {
  @PrimaryColumn({ type: 'varchar', length: 5 })
  code: string;

  @Column({ type: 'integer', nullable: true })
  userOwnerId: number | null;

  @Column({ type: 'integer', nullable: true })
  teamOwnerId: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}

export const REGISTRY_CODE_PATTERN = /^(IE[A-Z0-9]{3}|[A-Z0-9]{3})$/;
