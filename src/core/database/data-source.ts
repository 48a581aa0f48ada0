import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../config/app-config';
import { loadEnvFile } from '../config/load-env-file';
import { buildDataSourceOptions } from './data-source-options';

// The TypeORM CLI's entry (`npm run typeorm -- migration:generate migrations/Name`).
loadEnvFile();
export default new DataSource(buildDataSourceOptions(loadAppConfig(process.env)));
