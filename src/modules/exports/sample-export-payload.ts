import { SearchSamplesQueryDto } from '../samples';
import { SampleSearchQuery } from '../samples';
import { EXPORT_FORMATS, ExportFormat } from './export-formats';

/**
 * What a `sample_export` job carries (its `payload`, shown to the user on GET /api/jobs/{id}/):
 * the search as normalised when it was asked for, the format, and who asked — the worker rebuilds
 * that user from the database and evaluates visibility again when it runs.
 */
export interface SampleExportPayload {
  format: ExportFormat;
  query: SampleSearchQuery;
  user_id: number;
}

/** The payload of a stored job, or undefined when it is not one (a row written by hand, a newer version). */
export function readExportPayload(payload: Record<string, unknown>): SampleExportPayload | undefined {
  const { format, query, user_id: userId } = payload;
  if (typeof format !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(format)) return undefined;
  if (typeof userId !== 'number') return undefined;
  const search = SearchSamplesQueryDto.readStored(query);
  if (!search) return undefined;
  return { format: format as ExportFormat, query: search, user_id: userId };
}
