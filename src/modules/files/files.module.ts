import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { FilesService } from './files.service';
import { StoredFile } from './stored-file.entity';
import { StoredFileRepository } from './stored-file.repository';

@Module({
  imports: [TypeOrmModule.forFeature([StoredFile]), AccountsModule],
  providers: [FilesService, StoredFileRepository],
  exports: [FilesService],
})
export class FilesModule {}
