/**
 * The figures of a wait reason that cost a walk over every GPU, worked out on demand from a
 * cluster state (a pass does not compute them: a deep queue or a trace replay makes many reasons
 * nobody reads). Pure: reads the state, changes nothing.
 */
import type { JobRequest } from '../model/request.js';
import { waitReason, WAIT_CODES, type Status, type WaitReason } from '../model/status.js';
import type { EffectiveMode } from '../model/request.js';
import type { ClusterState } from './cluster-state.js';
import { mpsTenantHolders, qualifyingGpusAtMost } from './shared-placement.js';

const MODES: readonly string[] = ['exclusive', 'mps', 'timeslice', 'mig'];

/**
 * `reason` with its costly figures added: `gpu-capacity` gets `qualifyingGpus` (the most GPUs of
 * one unit that could take the job now), `mps-tenant` gets `gpus` (each GPU running MPS jobs of
 * another tenant: node, gpuIndex, tenant, null for several), `strict-isolation` its two searches
 * explained. Other reasons come back unchanged.
 */
export function explainWait(state: ClusterState, job: JobRequest, reason: WaitReason): WaitReason {
  const d = reason.details;
  switch (reason.code) {
    case WAIT_CODES.gpuCapacity: {
      const mode = typeof d.mode === 'string' && MODES.includes(d.mode) ? (d.mode as EffectiveMode) : null;
      if (mode === null || typeof d.gpuMilli !== 'number') return reason;
      return waitReason(reason.code, {
        ...d,
        qualifyingGpus: qualifyingGpusAtMost(job, mode, d.gpuMilli, state.groups, null),
      });
    }
    case WAIT_CODES.mpsTenant:
      return waitReason(reason.code, { ...d, gpus: mpsTenantHolders(job.tenant, state.groups) });
    case WAIT_CODES.strictIsolation: {
      const explained = (search: unknown): Status | null =>
        typeof search === 'object' && search !== null && 'code' in search
          ? explainWait(state, job, search as WaitReason)
          : null;
      return waitReason(reason.code, { ...d, mig: explained(d.mig), whole: explained(d.whole) });
    }
    default:
      return reason;
  }
}
