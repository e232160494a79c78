/**
 * Port: how the device plugin reads a pod's annotations (its gpushare assignment). The node agent
 * composes it over the API server; tests use a map.
 */

/** What the device plugin needs of a pod. */
export interface PodInfo {
  readonly annotations: Readonly<Record<string, string>>;
}

/** Reads pods by namespace and name. */
export interface PodSource {
  /**
   * The pod `namespace/name`, or null when it does not exist. Rejects when the source cannot be
   * read (the caller fails the kubelet's call with UNAVAILABLE).
   */
  getPod(namespace: string, name: string): Promise<PodInfo | null>;
}
