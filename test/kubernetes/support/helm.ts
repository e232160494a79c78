/**
 * Helm for the chart's tests: the binary scripts/build-helm.sh builds
 * (`${GPUSHARE_HELM_DIR:-~/.cache/gpushare/helm/v4.3.2}/helm`), whether it is there (the tests are
 * skipped when it is not, and fail under `GPUSHARE_REQUIRE_TOOLS=1`), and a runner that gives it a
 * kubeconfig and keeps its caches and config in a folder of the test.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { requireTool } from '../../support/required-tool.js';
import { runKubectl, type KubectlResult } from './kubectl.js';

/** The Helm release scripts/build-helm.sh builds. */
export const HELM_VERSION = 'v4.3.2';

/** The chart, deploy/helm/gpushare. */
export const CHART_DIR = join(import.meta.dirname, '..', '..', '..', 'deploy', 'helm', 'gpushare');

/** Absolute path of the built helm: `GPUSHARE_HELM_DIR`, else the build script's default folder. */
export function helmPath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.GPUSHARE_HELM_DIR;
  const dir =
    configured !== undefined && configured !== ''
      ? configured
      : join(homedir(), '.cache', 'gpushare', 'helm', HELM_VERSION);
  return join(dir, 'helm');
}

/** Whether helm is built, for `describe.skipIf(!helmAvailable())` (see requireTool). */
export function helmAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return requireTool(helmPath(env), 'scripts/build-helm.sh', env);
}

/**
 * Runs `helm args…` with `kubeconfig` (none: no cluster, as for `helm template` and `helm lint`)
 * and its cache, config and data folders under `stateDir`. Killed after `timeoutMs` (default 120 s).
 */
export function runHelm(
  args: readonly string[],
  options: { stateDir: string; kubeconfig?: string; timeoutMs?: number },
): Promise<KubectlResult> {
  const state = (name: string) => {
    const dir = join(options.stateDir, 'helm', name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: options.stateDir,
    HELM_CACHE_HOME: state('cache'),
    HELM_CONFIG_HOME: state('config'),
    HELM_DATA_HOME: state('data'),
    KUBECONFIG: options.kubeconfig ?? join(options.stateDir, 'no-kubeconfig'),
  };
  return runKubectl(helmPath(), args, env, { timeoutMs: options.timeoutMs ?? 120_000 });
}

/** A Kubernetes object as rendered: kind, metadata and the rest. */
export interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  readonly [field: string]: unknown;
}

/** Parses a multi-document YAML stream (helm template's output) into its objects, empty documents left out. */
export function parseObjects(yamlText: string): RenderedObject[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as RenderedObject | null)
    .filter((o): o is RenderedObject => o !== null && typeof o === 'object' && 'kind' in o);
}

/** `Kind namespace/name` (namespace empty for cluster objects), sorted, for comparing object sets. */
export function objectKeys(objects: readonly RenderedObject[]): string[] {
  return objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
}
