import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SamplesModule } from '../samples/samples.module';
import { OaiPmhController } from './oai-pmh.controller';
import { OaiPmhService } from './oai-pmh.service';

/** Harvesting: the OAI-PMH 2.0 repository of public samples at /oai. */
@Module({
  imports: [AccountsModule, SamplesModule],
  controllers: [OaiPmhController],
  providers: [OaiPmhService],
})
export class HarvestingModule {}
