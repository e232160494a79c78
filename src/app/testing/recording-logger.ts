/** A Logger for tests that keeps each line as `<level> <message>`, in order. */
import type { Logger } from '../scheduling/plane-deps.js';

/** A logger whose `lines` hold what was logged (`warn measuring GPU usage failed…`). */
export function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (_: object, message?: string) => void lines.push(`info ${message}`),
    warn: (_: object, message?: string) => void lines.push(`warn ${message}`),
    error: (_: object, message?: string) => void lines.push(`error ${message}`),
  };
}
