/**
 * Kubernetes resource quantities (`0.5`, `500m`, `2`, `1Gi`) as integers, for the values gpushare
 * reads: GPU counts in milli-units and memory in MiB. Follows the quantity grammar of
 * k8s.io/apimachinery/pkg/api/resource (signed decimal number, then a binary suffix Ki..Ei, a
 * decimal suffix n, u, m, k, M, G, T, P, E, or an exponent e/E); only non-negative values are valid
 * here.
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const PATTERN = /^\+?(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/**
 * The value of a quantity as a number (units; `500m` → 0.5), or null when `value` is not a
 * non-negative quantity. Numbers (a manifest's `0.5` read as YAML) are accepted as they are.
 */
export function quantityValue(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== 'string') return null;
  const match = PATTERN.exec(value.trim());
  if (!match) return null;
  const base = Number(match[1]);
  if (match[3] !== undefined) return base * 10 ** Number(match[3]);
  const suffix = match[2] ?? '';
  return base * (BINARY[suffix] ?? DECIMAL[suffix]!);
}

/** A quantity in milli-units, rounded to the nearest milli (`0.5` → 500, `1` → 1000); null when invalid. */
export function quantityMilli(value: unknown): number | null {
  const v = quantityValue(value);
  return v === null ? null : Math.round(v * 1000);
}
