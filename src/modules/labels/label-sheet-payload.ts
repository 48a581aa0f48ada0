import { SearchSamplesQueryDto } from '../samples';
import { SampleSearchQuery } from '../samples';
import { LABEL_LAYOUT_NAMES, LabelLayoutName } from './label-layouts';
import { LABEL_FIELDS } from './label-fields';

/**
 * What a `label_sheet` job carries (its `payload`): the search or the batch, the layout and fields,
 * the base URL the landing-page addresses are made of (the worker has no request to take it from),
 * and who asked — the worker rebuilds that user and applies visibility again when it runs.
 */
export interface LabelSheetPayload {
  query?: SampleSearchQuery;
  batch_id?: number;
  layout: LabelLayoutName;
  fields: string[];
  base_url: string;
  user_id: number;
}

/** The payload of a stored job, or undefined when it is not one. */
export function readLabelSheetPayload(payload: Record<string, unknown>): LabelSheetPayload | undefined {
  const { query, batch_id: batchId, layout, fields, base_url: baseUrl, user_id: userId } = payload;
  if (typeof layout !== 'string' || !(LABEL_LAYOUT_NAMES as string[]).includes(layout)) return undefined;
  if (!Array.isArray(fields) || fields.some((field) => typeof field !== 'string' || !LABEL_FIELDS.includes(field))) {
    return undefined;
  }
  if (typeof baseUrl !== 'string' || typeof userId !== 'number') return undefined;
  if ((query === undefined) === (batchId === undefined)) return undefined;
  if (batchId !== undefined && typeof batchId !== 'number') return undefined;
  let search: SampleSearchQuery | undefined;
  if (query !== undefined) {
    search = SearchSamplesQueryDto.readStored(query);
    if (!search) return undefined;
  }
  return {
    query: search,
    batch_id: batchId,
    layout: layout as LabelLayoutName,
    fields: fields as string[],
    base_url: baseUrl,
    user_id: userId,
  };
}
