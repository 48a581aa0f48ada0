import { ApiError } from '../../../core/http/api-error';

/** The batch is invalid: the job fails for good (no retry) with this message and report. */
export class BatchRejected extends Error {
  constructor(
    message: string,
    readonly errorsByRow = new Map<number, string>(),
  ) {
    super(message);
  }
}

/** A row's refusal as one line of the error report; anything but a refusal is not the row's fault. */
export function describeRowError(error: unknown): string {
  if (error instanceof ApiError) {
    const body = error.getResponse() as { message: string; errors: Record<string, string[]> };
    const fields = Object.entries(body.errors);
    return fields.length
      ? fields.map(([field, messages]) => `${field}: ${messages.join('; ')}`).join(' | ')
      : body.message;
  }
  throw error;
}
