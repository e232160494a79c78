/**
 * Job name patterns of listings and bulk actions (`GET /api/v1/jobs?name=`, `gpushare jobs
 * --name`, `gpushare cancel --name`): the whole name must match; `*` matches any run of
 * characters (none included); every other character matches itself, case-sensitively. So
 * `train-7` is that name only, `train-*` every name that starts with `train-`, and `*eval*` every
 * name that holds `eval`.
 */

/** The most characters a pattern may have (a job name has at most 253). */
export const MAX_NAME_PATTERN_LENGTH = 256;

/**
 * A compiled pattern: `matches(name)`, and `prefix`, the literal text before the first `*` (for an index range scan).
 */
export interface NamePattern {
  readonly pattern: string;
  /** The literal start every match has ('' when the pattern starts with `*`). */
  readonly prefix: string;
  /** True when the pattern has no `*` (an exact name). */
  readonly exact: boolean;
  matches(name: string): boolean;
}

/**
 * Compiles `pattern`. @throws RangeError when it is empty or longer than
 * {@link MAX_NAME_PATTERN_LENGTH} characters.
 */
export function compileNamePattern(pattern: string): NamePattern {
  if (pattern.length === 0 || pattern.length > MAX_NAME_PATTERN_LENGTH) {
    throw new RangeError(`a name pattern has 1 to ${MAX_NAME_PATTERN_LENGTH} characters, got ${pattern.length}`);
  }
  const parts = pattern.split('*');
  const prefix = parts[0]!;
  if (parts.length === 1) return { pattern, prefix, exact: true, matches: (name) => name === pattern };
  const suffix = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((p) => p.length > 0);
  return {
    pattern,
    prefix,
    exact: false,
    matches(name: string): boolean {
      if (name.length < prefix.length + suffix.length || !name.startsWith(prefix) || !name.endsWith(suffix))
        return false;
      // Greedy-free scan: each middle part at its earliest place after the previous one.
      let at = prefix.length;
      const end = name.length - suffix.length;
      for (const part of middle) {
        const found = name.indexOf(part, at);
        if (found < 0 || found + part.length > end) return false;
        at = found + part.length;
      }
      return true;
    },
  };
}
