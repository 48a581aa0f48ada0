import { RowDefaults } from '../batch-row.mapper';

/**
 * The values a row without its own registry code or object type takes: the Metadata sheet's
 * first, then the upload's form fields (kept in the job's payload). The template's placeholder
 * "Enter per sample" is no default.
 */
export function batchRowDefaults(
  metadata: Record<string, string | undefined>,
  payload: Record<string, unknown>,
): RowDefaults {
  const objectTypeDefault =
    metadata.object_type && !/^enter per sample/i.test(metadata.object_type) ? metadata.object_type : undefined;
  const formValue = (key: string) => (typeof payload[key] === 'string' && payload[key] ? payload[key] : undefined);
  return {
    registryCode: metadata.registry_code ?? metadata.sesar_code ?? formValue('registry_code'),
    objectType: objectTypeDefault ?? formValue('object_type'),
  };
}
