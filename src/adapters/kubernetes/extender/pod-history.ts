/**
 * The extender's history of the pods it placed, as rows of the history export (contract/history.ts,
 * docs/kubernetes/extender.md "History"): when a pod with a gpushare assignment, bound where the
 * assignment says, has ended (Succeeded or Failed, or deleted after it started), one row goes to the
 * sink, once per pod (rows are named `<namespace>.<name>-<uid>`). Nothing is measured here: the
 * peak columns are empty.
 *
 * Times: `creation_time` the pod's creationTimestamp; `scheduled_time` the first start of one of its
 * containers (else the pod's startTime); `deletion_time` the last container's finish (else when the
 * end was seen).
 */
import { historyCsvLine, historyRowName, type HistoryRow } from '../../../contract/history.js';
import type { KubeContainerStatus, KubePod } from '../schema/kube-objects.js';
import { parseAssignment } from '../schema/pod-assignment.js';
import { parsePodRequest } from '../schema/pod-request.js';
import { quantityMilli, quantityValue } from '../schema/quantity.js';

/** Where rows go: an append-only file (history-file.ts) or a test's list. */
export interface PodHistorySink {
  /** Names of the rows it holds already (a restarted extender sees ended pods again). */
  readonly names: ReadonlySet<string>;
  /** Appends one row (with its newline). */
  append(line: string): void;
}

const msOf = (time: string | Date | undefined): number | null => {
  if (time === undefined) return null;
  const ms = new Date(time).getTime();
  return Number.isFinite(ms) ? ms : null;
};

/** The earliest (`pick` Math.min) or latest (Math.max) of the times; null when there is none. */
function extreme(times: readonly (string | Date | undefined)[], pick: (...v: number[]) => number): number | null {
  const ms = times.map(msOf).filter((t): t is number => t !== null);
  return ms.length === 0 ? null : pick(...ms);
}

/** The row name of a pod: `<namespace>.<name>` and its UID as the id. */
const rowName = (pod: KubePod): { name: string; id: string } => ({
  name: `${pod.metadata?.namespace ?? ''}.${pod.metadata?.name ?? ''}`,
  id: pod.metadata?.uid ?? '',
});

/**
 * The history row of `pod` once it has ended, or null: not a gpushare pod bound where its
 * assignment says, or never started.
 * @param seenEndMs when the end was seen (the end time of a pod whose containers report none)
 */
export function podHistoryRow(pod: KubePod, seenEndMs: number): HistoryRow | null {
  const annotations = pod.metadata?.annotations;
  const request = parsePodRequest(annotations);
  const assignment = parseAssignment(annotations);
  if (request.kind !== 'request' || assignment === null || 'error' in assignment) return null;
  if (pod.spec?.nodeName !== assignment.node) return null;
  const statuses: readonly KubeContainerStatus[] = pod.status?.containerStatuses ?? [];
  const started =
    extreme(
      statuses.map((c) => c.state?.running?.startedAt ?? c.state?.terminated?.startedAt),
      Math.min,
    ) ?? msOf(pod.status?.startTime);
  if (started === null) return null;
  const finished = extreme(
    statuses.map((c) => c.state?.terminated?.finishedAt),
    Math.max,
  );
  const requests = (pod.spec?.containers ?? []).map((c) => c.resources?.requests ?? {});
  const sum = (values: (number | null)[]): number => values.reduce<number>((a, v) => a + (v ?? 0), 0);
  const { gpu } = request.request;
  return {
    ...rowName(pod),
    cpuMilli: sum(requests.map((r) => quantityMilli(r.cpu))),
    hostMemoryMiB: Math.round(sum(requests.map((r) => quantityValue(r.memory))) / 2 ** 20),
    gpuCount: gpu.gpuCount,
    gpuMilli: gpu.gpuMilli,
    allowedGpuModels: gpu.allowedGpuModels ?? [],
    submittedAtMs: msOf(pod.metadata?.creationTimestamp) ?? started,
    firstStartedAtMs: started,
    runMs: Math.max(0, (finished ?? seenEndMs) - started),
    tenant: pod.metadata?.namespace ?? '',
    priority: pod.spec?.priority ?? 0,
    sharingMode: assignment.mode,
    gpuMemoryMiB: gpu.gpuMemoryMiB,
    measuredGpuMemoryMiB: null,
    measuredGpuUtilPct: null,
  };
}

/** Writes a row for each placed pod that ends, once. */
export class PodHistory {
  /** Row names written by this process or found in the sink. */
  private readonly written: Set<string>;

  constructor(
    private readonly sink: PodHistorySink,
    private readonly nowMs: () => number,
  ) {
    this.written = new Set(sink.names);
  }

  /**
   * Told of every pod the watch shows (`deleted` for a delete event): a pod that has finished, or
   * is deleted after it started, gets its row unless it has one. Never throws: a row that cannot
   * be written is reported to `onError` and tried again at the pod's next event.
   */
  observe(pod: KubePod, deleted: boolean, onError: (error: unknown) => void = () => undefined): void {
    const phase = pod.status?.phase;
    if (!deleted && phase !== 'Succeeded' && phase !== 'Failed') return;
    const row = podHistoryRow(pod, this.nowMs());
    if (row === null) return;
    const key = historyRowName(row);
    if (!this.written.has(key)) {
      try {
        this.sink.append(historyCsvLine(row));
        this.written.add(key);
      } catch (error) {
        onError(error);
        return;
      }
    }
    // A deleted pod never comes back (a new one has a new UID).
    if (deleted) this.written.delete(key);
  }
}
