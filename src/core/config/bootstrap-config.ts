import { ConsoleLogger, LogLevel, Logger } from '@nestjs/common';
import { AppConfig, LogLevel as AppLogLevel, loadAppConfig } from './app-config';
import { ConfigError } from './env-values';
import { loadEnvFile } from './load-env-file';

/** Nest's levels enabled at each LOG_LEVEL. */
const NEST_LEVELS: Record<AppLogLevel, LogLevel[]> = {
  silent: [],
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/**
 * Entry points call this first: `.env` is read (the real environment wins) and validated. A bad
 * value stops the process with one line naming the variable, not a stack trace.
 */
export function bootstrapConfig(): AppConfig {
  try {
    loadEnvFile();
    const config = loadAppConfig(process.env);
    // Until the app's pino logger takes over (e.g. while migrations run), Nest logs JSON lines too.
    Logger.overrideLogger(new ConsoleLogger({ json: true, colors: false, logLevels: NEST_LEVELS[config.log.level] }));
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
