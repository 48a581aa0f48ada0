import { Transform } from 'class-transformer';

/**
 * A decimal number written as text, the way Django REST Framework's FloatField and DecimalField read
 * one: optional sign, digits with an optional fraction, an optional exponent, surrounding blanks
 * ignored. Nothing else — not `NaN`, `Infinity`, hex, `1,5` or the empty string.
 */
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The number a JSON value stands for: a number as is, a decimal string converted; anything else unchanged. */
export function numberFromJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!DECIMAL_TEXT.test(text)) return value;
  const number = Number(text);
  return Number.isFinite(number) ? number : value;
}

/**
 * A numeric JSON field also accepts a string holding a decimal number (`"latitude": "38.957178"`),
 * as SESAR2's clients send them; the validators after it (IsNumber, IsInt, Min, Max) then judge the
 * number, and any other value is left as sent, so they answer 400 naming the field. Responses keep
 * JSON numbers.
 */
export const AcceptsNumericString = () => Transform(({ value }: { value: unknown }) => numberFromJson(value));
