import { FieldErrors } from '../../../core/http/error-body';
import { batchFieldByHeader } from '../batch-fields';

/** A collector offered by a template, as stored and as read back. */
export interface CollectorTag {
  label: string;
  description: string | null;
}

const MAX_COLLECTOR_LABEL = 200;
const MAX_COLLECTOR_DESCRIPTION = 2000;

function addError(errors: FieldErrors, path: string, message: string): void {
  (errors[path] ??= []).push(message);
}

/**
 * Column keys of the batch field catalog, in the order given, without repeats. A column's label
 * is accepted too and stored as its key; anything else is an error at `selected_fields.N`.
 */
export function normaliseSelectedFields(values: readonly string[] | null, errors: FieldErrors): string[] {
  const keys: string[] = [];
  (values ?? []).forEach((value, index) => {
    const field = batchFieldByHeader(value);
    if (!field) {
      addError(errors, `selected_fields.${index}`, `unknown field "${value}"; use a key of the batch field catalog`);
    } else if (!keys.includes(field.key)) {
      keys.push(field.key);
    }
  });
  return keys;
}

/** A preset list (already validated as strings of at most 255): trimmed, blanks and repeats dropped. */
export function normalisePresets(values: readonly string[] | null | undefined): string[] {
  return [...new Set((values ?? []).map((value) => value.trim()).filter(Boolean))];
}

/**
 * Collectors given as names or `{label, description}` objects, stored as objects. Errors name the
 * entry (`collectors.2`) or its member (`collectors.2.label`).
 */
export function normaliseCollectors(values: readonly unknown[] | null, errors: FieldErrors): CollectorTag[] {
  const tags: CollectorTag[] = [];
  (values ?? []).forEach((value, index) => {
    const path = `collectors.${index}`;
    if (typeof value === 'string') {
      const label = value.trim();
      if (!label) addError(errors, path, 'must not be empty');
      else if (label.length > MAX_COLLECTOR_LABEL)
        addError(errors, path, `must be at most ${MAX_COLLECTOR_LABEL} characters`);
      else tags.push({ label, description: null });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      addError(errors, path, 'must be a name or an object {label, description}');
      return;
    }
    const { label, description, ...rest } = value as Record<string, unknown>;
    for (const extra of Object.keys(rest)) addError(errors, `${path}.${extra}`, 'This field is not allowed.');
    const trimmedLabel = typeof label === 'string' ? label.trim() : '';
    if (!trimmedLabel) addError(errors, `${path}.label`, 'is required');
    else if (trimmedLabel.length > MAX_COLLECTOR_LABEL) {
      addError(errors, `${path}.label`, `must be at most ${MAX_COLLECTOR_LABEL} characters`);
    }
    let text: string | null = null;
    if (description !== undefined && description !== null) {
      if (typeof description !== 'string') addError(errors, `${path}.description`, 'must be a string');
      else if (description.trim().length > MAX_COLLECTOR_DESCRIPTION) {
        addError(errors, `${path}.description`, `must be at most ${MAX_COLLECTOR_DESCRIPTION} characters`);
      } else text = description.trim() || null;
    }
    if (trimmedLabel && trimmedLabel.length <= MAX_COLLECTOR_LABEL)
      tags.push({ label: trimmedLabel, description: text });
  });
  return tags;
}

/** Stored collectors as tags, whether they were stored as names or as objects. */
export function collectorTags(stored: readonly unknown[]): CollectorTag[] {
  const tags: CollectorTag[] = [];
  for (const entry of stored) {
    if (typeof entry === 'string' && entry.trim()) tags.push({ label: entry.trim(), description: null });
    else if (entry !== null && typeof entry === 'object') {
      const { label, description } = entry as Record<string, unknown>;
      if (typeof label === 'string' && label.trim()) {
        tags.push({ label: label.trim(), description: typeof description === 'string' ? description : null });
      }
    }
  }
  return tags;
}
