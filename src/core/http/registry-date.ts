import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';

/**
 * The one date rule of every sample write — JSON, batch rows and legacy XML all validate through
 * the same DTO: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or `YYYY-MM-DDThh:mm[:ss[.fraction]]` with `Z`, an
 * offset `±hh:mm`, or no zone (read as UTC). Years 0001-9999 only. ISO 8601's other forms (week
 * `2024-W05`, ordinal `2024-123`, basic `20240601`, hour-only `T12`, signed years `-2024-06-01`) are
 * refused: PostgreSQL and JavaScript read them differently or not at all.
 */
const REGISTRY_DATE =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/i;

export const REGISTRY_DATE_FORMS =
  'YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.fff]] with Z, ±hh:mm or no zone (UTC)';

/** The instant a registry date names (the start of a year, month or day; UTC), or undefined when it is not one. */
export function parseRegistryDate(text: string): Date | undefined {
  const match = REGISTRY_DATE.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const parts = [Number(y), Number(mo ?? 1), Number(d ?? 1), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)];
  const [year, month, day, hour, minute, second] = parts;
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year); // Date.UTC takes years 0-99 as 1900-1999
  // Date.UTC rolls 2024-02-30 over into March: a day that does not exist is refused.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  if (fraction) date.setUTCMilliseconds(Number(fraction.slice(0, 3).padEnd(3, '0')));
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const [offsetHours, offsetMinutes] = zone.slice(1).split(':').map(Number);
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    date.setTime(date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  }
  return date;
}

/** class-validator decorator: the value is a string parseRegistryDate accepts. */
export function IsRegistryDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isRegistryDate',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseRegistryDate(value) !== undefined,
        defaultMessage: buildMessage((each) => `${each}$property must be a date: ${REGISTRY_DATE_FORMS}`, options),
      },
    },
    options,
  );
}
