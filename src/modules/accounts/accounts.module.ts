import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '../agents/agents.module';
import { AccountsService } from './accounts.service';
import { PasswordHasher } from './password-hasher';
import { RegistryCode } from './registry-code.entity';
import { Team, TeamMember } from './team.entity';
import { User } from './user.entity';
import { UsersController } from './users.controller';

/** Users, teams and registry codes. Other features use AccountsService, never these repositories. */
@Module({
  imports: [TypeOrmModule.forFeature([User, Team, TeamMember, RegistryCode]), AgentsModule],
  controllers: [UsersController],
  providers: [AccountsService, PasswordHasher],
  exports: [AccountsService, PasswordHasher],
})
export class AccountsModule {}
