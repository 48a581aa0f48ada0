import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthConnection } from './auth-connection.entity';

/** Every SQL statement of `auth_connection`. */
@Injectable()
export class AuthConnectionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async existsByName(name: string): Promise<boolean> {
    return this.dataSource.getRepository(AuthConnection).existsBy({ name });
  }

  async insert(fields: Partial<AuthConnection>): Promise<AuthConnection> {
    const repository = this.dataSource.getRepository(AuthConnection);
    return repository.save(repository.create(fields));
  }

  /** The connection with its secret (not read otherwise), or null. */
  async findWithSecret(name: string): Promise<AuthConnection | null> {
    return this.dataSource
      .getRepository(AuthConnection)
      .createQueryBuilder('connection')
      .addSelect('connection.secret')
      .where('connection.name = :name', { name })
      .getOne();
  }
}
