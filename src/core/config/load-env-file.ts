import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** Reads `.env` from the working directory into process.env; variables already set win. */
export function loadEnvFile(path = resolve(process.cwd(), '.env')): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
