import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, FindOneOptions } from 'typeorm';
import { LaunchPlatform } from './entities/launch-platform.entity';
import { Platform } from './entities/platform.entity';

/** The rows of each platform table. */
export interface PlatformRows {
  platform: Platform;
  launch_platform: LaunchPlatform;
}
export type PlatformTable = keyof PlatformRows;

/** Each table's entity, and what a read of one of its rows loads (its vocabulary term). */
const READS: { [K in PlatformTable]: { entity: EntityTarget<PlatformRows[K]>; options: FindOneOptions } } = {
  platform: { entity: Platform, options: { relations: { platformType: true } } },
  launch_platform: { entity: LaunchPlatform, options: { relations: { launchType: true } } },
};

/**
 * The statements of `platform` and `launch_platform` that are theirs alone (create-or-match, label
 * checks and fill-ins go through LabelledRowRepository). Statements given a manager run in the
 * caller's transaction.
 */
@Injectable()
export class PlatformRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The row with its type, or null. */
  async find<K extends PlatformTable>(
    table: K,
    id: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PlatformRows[K] | null> {
    const { entity, options } = READS[table];
    return manager.findOne(entity, { ...options, where: { id } } as FindOneOptions<PlatformRows[K]>);
  }

  /** The row with its type; throws when it does not exist (a row this transaction matched). */
  async findOrFail<K extends PlatformTable>(
    table: K,
    id: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PlatformRows[K]> {
    const { entity, options } = READS[table];
    return manager.findOneOrFail(entity, { ...options, where: { id } } as FindOneOptions<PlatformRows[K]>);
  }

  /** Sets the columns given (entity property names, as a PATCH body maps them). */
  async update(table: PlatformTable, id: number, fields: Record<string, unknown>): Promise<void> {
    const entity: EntityTarget<PlatformRows[PlatformTable]> = READS[table].entity;
    await this.dataSource.manager.update(entity, id, fields);
  }
}
