import { Transform } from 'class-transformer';

/** Trims a string field before validation (so `"  "` fails `@IsNotEmpty()` and lengths count what is stored). */
export const Trim = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Trims an optional string field; blank becomes null. */
export const TrimToNull = () =>
  Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string') return value;
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  });

/** The same rule for services called with plain objects (not passed through the validation pipe). */
export function trimToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
