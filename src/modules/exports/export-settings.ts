import { AppConfig } from '../../core/config/app-config';

/** Samples read (and written to the file) per keyset page: bounds the worker's memory. */
export const EXPORT_PAGE_SIZE = 1000;

/** EXPORT_TTL as seconds (default one day). */
export function exportTtlSeconds(config: AppConfig): number {
  return config.exports.ttlSeconds;
}
