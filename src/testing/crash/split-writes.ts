/**
 * A planted bug for the crash harness's own test: a store whose job changes that record a process
 * handle are written in two transactions — the state change first, the handle in a second — as a
 * launch would be if its write were split. A crash between the two leaves a `running` job without
 * its process: the restart takes it for lost while its process runs on.
 */
import type { SqliteStateStore } from '../../adapters/store/sqlite-store.js';
import type { JobChange, StateStore } from '../../app/ports/state-store.js';

/** `store` with each job change that sets `process` split into two transactions (see the module comment). */
export function splitProcessWrites(store: SqliteStateStore): StateStore {
  return {
    ...store,
    applyJobChanges: (changes: readonly JobChange[]) => {
      for (const change of changes) {
        const { process, ...rest } = change.patch ?? {};
        if (process === undefined) {
          store.applyJobChanges([change]);
          continue;
        }
        store.applyJobChanges([{ ...change, patch: rest }]);
        store.applyJobChanges([
          { jobId: change.jobId, atMs: change.atMs, expectState: change.to ?? change.expectState, patch: { process } },
        ]);
      }
    },
  };
}
