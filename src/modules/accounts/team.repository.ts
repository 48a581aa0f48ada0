import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Team, TeamMember, TeamRole } from './team.entity';

/** Every SQL statement of `team` and `team_member`. Statements given a manager run in the caller's transaction. */
@Injectable()
export class TeamRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async existsByName(manager: EntityManager, name: string): Promise<boolean> {
    return manager.existsBy(Team, { name });
  }

  async insert(manager: EntityManager, name: string): Promise<Team> {
    return manager.save(manager.create(Team, { name }));
  }

  async findByIds(ids: number[]): Promise<Team[]> {
    if (ids.length === 0) return [];
    return this.dataSource.getRepository(Team).findBy({ id: In(ids) });
  }

  async findByName(name: string): Promise<Team | null> {
    return this.dataSource.getRepository(Team).findOne({ where: { name } });
  }

  /** Adds the member, or changes the role of one already there. */
  async upsertMember(member: { teamId: number; userId: number; role: TeamRole }): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(TeamMember)
      .values(member)
      .orUpdate(['role'], ['team_id', 'user_id'])
      .execute();
  }

  /** The teams the user is a manager of, by name. */
  async managedBy(userId: number): Promise<Team[]> {
    return this.dataSource
      .getRepository(Team)
      .createQueryBuilder('team')
      .innerJoin(TeamMember, 'member', 'member.team_id = team.id')
      .where("member.user_id = :userId AND member.role = 'manager'", { userId })
      .orderBy('team.name')
      .getMany();
  }

  async findById(id: number): Promise<Team | null> {
    return this.dataSource.getRepository(Team).findOne({ where: { id } });
  }

  /** The ids of the team's members with this role. */
  async memberIds(teamId: number, role: TeamRole, manager: EntityManager = this.dataSource.manager): Promise<number[]> {
    const members = await manager.find(TeamMember, { where: { teamId, role } });
    return members.map((member) => member.userId);
  }

  async membershipsOf(userId: number): Promise<TeamMember[]> {
    return this.dataSource.getRepository(TeamMember).find({ where: { userId } });
  }
}
