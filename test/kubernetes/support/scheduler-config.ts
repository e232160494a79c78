/**
 * deploy/kubernetes/scheduler-config.yaml made runnable in a test: the extender's `urlPrefix`
 * pointed at an extender on 127.0.0.1 and its `tlsConfig.caFile` at the test's CA file; every other
 * field stays as shipped. The control plane sets `clientConnection.kubeconfig` itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/** The shipped configuration. */
export const SHIPPED_SCHEDULER_CONFIG = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'deploy',
  'kubernetes',
  'scheduler-config.yaml',
);

interface ExtenderStanza {
  urlPrefix: string;
  tlsConfig?: { caFile?: string; certFile?: string; keyFile?: string };
  [field: string]: unknown;
}

/**
 * Writes the shipped configuration to `outputPath` with its one extender's `urlPrefix` replaced
 * by `urlPrefix` (e.g. `https://127.0.0.1:PORT/scheduler`), `tlsConfig.caFile` by `caFile`, and
 * its client certificate and key by `client` (left out without).
 * Returns the configuration written.
 * @throws Error when the shipped file has not exactly one extender
 */
export function writeTestSchedulerConfig(
  outputPath: string,
  urlPrefix: string,
  caFile: string,
  client?: { certFile: string; keyFile: string },
): Record<string, unknown> {
  const config = parse(readFileSync(SHIPPED_SCHEDULER_CONFIG, 'utf8')) as { extenders?: ExtenderStanza[] } & Record<
    string,
    unknown
  >;
  if (config.extenders?.length !== 1)
    throw new Error(`${SHIPPED_SCHEDULER_CONFIG}: expected one extender, found ${config.extenders?.length ?? 0}`);
  const extender = config.extenders[0]!;
  // The scheduler's client certificate: the test's, or none for an extender that asks for none.
  const { certFile: _cert, keyFile: _key, ...serverSide } = extender.tlsConfig ?? {};
  config.extenders = [{ ...extender, urlPrefix, tlsConfig: { ...serverSide, caFile, ...(client ?? {}) } }];
  writeFileSync(outputPath, stringify(config));
  return config;
}
