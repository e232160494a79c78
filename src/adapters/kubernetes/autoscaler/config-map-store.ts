/**
 * The autoscaler's record (app/ports/autoscaler-store.ts) in a ConfigMap, as JSON under the key
 * `record.json`. Each write names the resourceVersion this store read or wrote last, so a second
 * autoscaler writing the same ConfigMap makes the other's next write fail (409) instead of
 * silently replacing its record; the first write creates the ConfigMap.
 */
import type { AutoscalerRecord, AutoscalerStore } from '../../../app/ports/autoscaler-store.js';
import { statusMessage, type KubeRest } from '../extender/kube-rest.js';

/** The ConfigMap's key that holds the record. */
export const RECORD_KEY = 'record.json';

interface ConfigMap {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly data?: Readonly<Record<string, string>>;
}

/** A store in ConfigMap `namespace/name`. */
export class ConfigMapStore implements AutoscalerStore {
  /** resourceVersion last read or written; null: the ConfigMap did not exist. */
  private resourceVersion: string | null = null;

  constructor(
    private readonly rest: KubeRest,
    private readonly namespace: string,
    private readonly name: string,
  ) {}

  private path(name?: string): string {
    const base = `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/configmaps`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  }

  async load(): Promise<AutoscalerRecord | null> {
    const answer = await this.rest.request('GET', this.path(this.name));
    if (answer.status === 404) {
      this.resourceVersion = null;
      return null;
    }
    if (answer.status !== 200)
      throw new Error(`GET ConfigMap ${this.namespace}/${this.name}: ${statusMessage(answer)}`);
    const map = answer.body as ConfigMap;
    this.resourceVersion = map.metadata?.resourceVersion ?? null;
    const text = map.data?.[RECORD_KEY];
    if (text === undefined) return null;
    let record: AutoscalerRecord;
    try {
      record = JSON.parse(text) as AutoscalerRecord;
    } catch (err) {
      throw new Error(`ConfigMap ${this.namespace}/${this.name}: ${RECORD_KEY} is not JSON: ${(err as Error).message}`);
    }
    if (record?.schema !== 1 || typeof record.state !== 'object' || typeof record.groups !== 'object')
      throw new Error(
        `ConfigMap ${this.namespace}/${this.name}: ${RECORD_KEY} is not an autoscaler record of schema 1`,
      );
    return record;
  }

  async save(record: AutoscalerRecord): Promise<void> {
    const metadata = {
      name: this.name,
      namespace: this.namespace,
      labels: { 'app.kubernetes.io/part-of': 'gpushare', 'app.kubernetes.io/component': 'autoscaler' },
      ...(this.resourceVersion !== null ? { resourceVersion: this.resourceVersion } : {}),
    };
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { [RECORD_KEY]: JSON.stringify(record) } };
    const answer =
      this.resourceVersion === null
        ? await this.rest.request('POST', this.path(), body)
        : await this.rest.request('PUT', this.path(this.name), body);
    if (answer.status !== 200 && answer.status !== 201) {
      this.resourceVersion = null;
      const conflict = answer.status === 409 ? ' (another writer changed it: is a second autoscaler running?)' : '';
      throw new Error(`write ConfigMap ${this.namespace}/${this.name}: ${statusMessage(answer)}${conflict}`);
    }
    this.resourceVersion = (answer.body as ConfigMap).metadata?.resourceVersion ?? null;
  }
}
