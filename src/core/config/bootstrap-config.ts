import { AppConfig, ConfigError, loadAppConfig } from './app-config';
import { loadEnvFile } from './load-env-file';

/**
 * Entry points call this first: `.env` is read (the real environment wins) and validated. A bad
 * value stops the process with one line naming the variable, not a stack trace.
 */
export function bootstrapConfig(): AppConfig {
  try {
    loadEnvFile();
    return loadAppConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
