import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An integration connection: an OpenID Connect issuer whose id_tokens are exchanged for registry
 * token pairs. Exactly one of jwks_url, public_key (PEM) or secret verifies its signatures.
 */
@Entity('auth_connection')
export class AuthConnection {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100, unique: true })
  name: string;

  @Column({ type: 'varchar', length: 500 })
  issuer: string;

  @Column({ type: 'varchar', length: 500 })
  audience: string;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  jwksUrl: string | null;

  @Column({ type: 'text', nullable: true })
  publicKey: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true, select: false })
  secret: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
