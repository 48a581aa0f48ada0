/**
 * Polls until `check` stops throwing and returns what it returned; when `timeoutMs` has passed,
 * throws its last error. Tests wait on state this way, never on a fixed sleep.
 */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
