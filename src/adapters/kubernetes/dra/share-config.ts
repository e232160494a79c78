/**
 * The driver's opaque configuration (`spec.devices.config[].opaque` of a claim or `spec.config[]`
 * of a DeviceClass, for driver `gpu.gpushare.io`): how a shared device is shared. Pure.
 *
 * ```yaml
 * opaque:
 *   driver: gpu.gpushare.io
 *   parameters: {apiVersion: gpushare.io/v1, kind: GpuShareConfig, mode: mps}   # or timeslice (default)
 * ```
 *
 * Facts: the allocation's `status.allocation.devices.config[]` holds the class's and the claim's
 * configs, each with `source` (FromClass | FromClaim) and `requests` (empty: all requests); the
 * claim's come after the class's, and the last one that applies wins
 * (../shared docs K8S-DRA-CONTRACTS.md §1.2, §1.3, §1.5).
 */
import { DRA_DRIVER } from './dra-names.js';

/** apiVersion of {@link GpuShareConfig}. */
export const SHARE_CONFIG_API_VERSION = 'gpushare.io/v1';
/** kind of {@link GpuShareConfig}. */
export const SHARE_CONFIG_KIND = 'GpuShareConfig';
/** The sharing modes of a shared device. */
export const SHARE_MODES = ['timeslice', 'mps'] as const;
/** A sharing mode: `timeslice` (the GPU's time-slicing) or `mps` (an MPS daemon per GPU, limits per claim). */
export type ShareMode = (typeof SHARE_MODES)[number];
/** The mode when no config names one. */
export const DEFAULT_SHARE_MODE: ShareMode = 'timeslice';

/** The driver's opaque parameters. */
export interface GpuShareConfig {
  readonly apiVersion: typeof SHARE_CONFIG_API_VERSION;
  readonly kind: typeof SHARE_CONFIG_KIND;
  readonly mode: ShareMode;
}

/** Why a config was refused: a code, the field and the allowed values. */
export class ShareConfigError extends Error {
  override readonly name = 'ShareConfigError';
  readonly code = 'InvalidDriverConfig';
  constructor(
    /** Path of the bad field, e.g. `parameters.mode`. */
    readonly field: string,
    /** The allowed values. */
    readonly allowed: readonly string[],
    /** The value found (JSON). */
    readonly found: string,
  ) {
    super(`${field} must be ${allowed.map((a) => `"${a}"`).join(' or ')}, got ${found}`);
  }
}

const ALLOWED_KEYS = ['apiVersion', 'kind', 'mode'];

/**
 * Checks opaque `parameters` of this driver.
 * @throws ShareConfigError naming the field (`parameters.apiVersion`, `parameters.kind`,
 *   `parameters.mode`, or `parameters.<unknown key>`) and the allowed values
 */
export function parseShareConfig(parameters: unknown): GpuShareConfig {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
    throw new ShareConfigError('parameters', [`an object of kind ${SHARE_CONFIG_KIND}`], JSON.stringify(parameters));
  const p = parameters as Record<string, unknown>;
  if (p.apiVersion !== SHARE_CONFIG_API_VERSION)
    throw new ShareConfigError('parameters.apiVersion', [SHARE_CONFIG_API_VERSION], JSON.stringify(p.apiVersion));
  if (p.kind !== SHARE_CONFIG_KIND)
    throw new ShareConfigError('parameters.kind', [SHARE_CONFIG_KIND], JSON.stringify(p.kind));
  for (const key of Object.keys(p))
    if (!ALLOWED_KEYS.includes(key))
      throw new ShareConfigError(`parameters.${key}`, ['absent'], JSON.stringify(p[key]));
  const mode = p.mode ?? DEFAULT_SHARE_MODE;
  if (!(SHARE_MODES as readonly unknown[]).includes(mode))
    throw new ShareConfigError('parameters.mode', SHARE_MODES, JSON.stringify(p.mode));
  return { apiVersion: SHARE_CONFIG_API_VERSION, kind: SHARE_CONFIG_KIND, mode: mode as ShareMode };
}

/** One entry of `status.allocation.devices.config[]`. */
export interface AllocatedConfig {
  readonly source?: string;
  readonly requests?: readonly string[];
  readonly opaque?: { readonly driver?: string; readonly parameters?: unknown };
}

/** True when a config listing `requests` applies to result request `request` (`req` or `req/sub`). */
function applies(requests: readonly string[] | undefined, request: string): boolean {
  if (requests === undefined || requests.length === 0) return true;
  const parent = request.split('/')[0]!;
  return requests.includes(request) || requests.includes(parent);
}

/**
 * The sharing mode for the device allocated to `request`: the last of this driver's configs that
 * applies (class configs first, then the claim's), else {@link DEFAULT_SHARE_MODE}. Every config
 * of this driver is checked, applying or not.
 * @throws ShareConfigError for a config of this driver with bad parameters (field prefixed with
 *   `config[<i>].opaque.`)
 */
export function shareModeFor(configs: readonly AllocatedConfig[], request: string): ShareMode {
  let mode: ShareMode = DEFAULT_SHARE_MODE;
  const ordered = [
    ...configs.filter((c) => c.source !== 'FromClaim'),
    ...configs.filter((c) => c.source === 'FromClaim'),
  ];
  for (const config of ordered) {
    if (config.opaque?.driver !== DRA_DRIVER) continue;
    let parsed: GpuShareConfig;
    try {
      parsed = parseShareConfig(config.opaque.parameters);
    } catch (error) {
      if (!(error instanceof ShareConfigError)) throw error;
      const i = configs.indexOf(config);
      throw new ShareConfigError(`config[${i}].opaque.${error.field}`, error.allowed, error.found);
    }
    if (applies(config.requests, request)) mode = parsed.mode;
  }
  return mode;
}
