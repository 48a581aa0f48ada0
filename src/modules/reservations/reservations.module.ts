import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BackgroundJobsModule } from '../background-jobs/background-jobs.module';
import { SamplesModule } from '../samples/samples.module';
import { ReservationsController } from './reservations.controller';
import { ReservationsService } from './reservations.service';

/** Reserved IGSNs: POST /api/samples/reserve/; large ones minted on the worker (SampleReservationProcessor). */
@Module({
  imports: [AccountsModule, BackgroundJobsModule, SamplesModule],
  controllers: [ReservationsController],
  providers: [ReservationsService],
  exports: [ReservationsService],
})
export class ReservationsModule {}
