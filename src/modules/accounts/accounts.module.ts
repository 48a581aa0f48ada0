import { RegistryCodesController } from './registry-codes.controller';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentsModule } from '../agents/agents.module';
import { AccountsService } from './accounts.service';
import { PasswordHasher } from './password-hasher';
import { RegistryCode } from './registry-code.entity';
import { RegistryCodeRepository } from './registry-code.repository';
import { Team, TeamMember } from './team.entity';
import { TeamRepository } from './team.repository';
import { User } from './user.entity';
import { UserRepository } from './user.repository';
import { UsersController } from './users.controller';

/**
 * Users, teams and registry codes. Other features use AccountsService; UserRepository is exported
 * for the locks and storage quota they take on a user's row (token pairs, exports, stored files).
 */
@Module({
  imports: [TypeOrmModule.forFeature([User, Team, TeamMember, RegistryCode]), AgentsModule],
  controllers: [UsersController, RegistryCodesController],
  providers: [AccountsService, PasswordHasher, UserRepository, TeamRepository, RegistryCodeRepository],
  exports: [AccountsService, PasswordHasher, UserRepository],
})
export class AccountsModule {}
