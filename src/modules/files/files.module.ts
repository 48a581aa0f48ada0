import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FilesService } from './files.service';
import { StoredFile } from './stored-file.entity';

@Module({ imports: [TypeOrmModule.forFeature([StoredFile])], providers: [FilesService], exports: [FilesService] })
export class FilesModule {}
