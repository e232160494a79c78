/**
 * A small parser of the Prometheus text exposition format (version 0.0.4) as prom-client writes
 * it, for tests and tools that read `/metrics`: one sample per line
 * `name{label="value",...} value`, `# HELP` / `# TYPE` comments skipped. Label values may contain
 * the escapes `\\`, `\"` and `\n`. Timestamps after the value are not supported (prom-client
 * writes none).
 */

/** One sample. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The value; `+Inf`, `-Inf` and `NaN` are parsed as such. */
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;

/** Parses exposition text. @throws Error naming the 1-based line for a line that is not a sample or comment */
export function parseMetricsText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = LINE.exec(line);
    if (!match) throw new Error(`metrics line ${i + 1}: not a sample: "${line}"`);
    const labels: Record<string, string> = {};
    const body = match[3] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const start = LABEL.lastIndex;
      const label = LABEL.exec(body);
      if (!label) throw new Error(`metrics line ${i + 1}: bad labels at column ${start + 1}: "${line}"`);
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const value = match[4]!;
    samples.push({
      name: match[1]!,
      labels,
      value: value === '+Inf' ? Infinity : value === '-Inf' ? -Infinity : Number(value),
    });
  });
  return samples;
}

/** The samples named `name` whose labels include every pair of `labels`. */
export function findSamples(
  samples: readonly MetricSample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): MetricSample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the only sample matching `name` and `labels`. @throws Error when none or several match */
export function sampleValue(
  samples: readonly MetricSample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const found = findSamples(samples, name, labels);
  if (found.length !== 1)
    throw new Error(`expected one sample ${name}${JSON.stringify(labels)}, found ${found.length}`);
  return found[0]!.value;
}
