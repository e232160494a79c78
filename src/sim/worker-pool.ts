/**
 * A pool of worker threads that runs tasks one per worker at a time, shared by the packing grid
 * (run-grid.ts) and the hybrid-sharing grid (hybrid/run-hybrid.ts). Workers answer each task with
 * `{ id, ok: true, result }` or `{ id, ok: false, error: { name, message } }`.
 */
import { Worker } from 'node:worker_threads';

/** A worker's answer to task `id`. */
export type WorkerReply<R> =
  | { readonly id: number; readonly ok: true; readonly result: R }
  | { readonly id: number; readonly ok: false; readonly error: { readonly name: string; readonly message: string } };

/** How to run a pool. */
export interface WorkerPoolOptions<T, R> {
  /** The compiled worker module. */
  readonly workerUrl: URL;
  /** `workerData` for every worker. */
  readonly data: unknown;
  /** Tasks in order; a task's `id` is its index. */
  readonly tasks: readonly T[];
  /** Number of worker threads. */
  readonly size: number;
  /** Called with each result as it arrives. */
  readonly onDone: (id: number, result: R) => void;
  /** Builds the error for a failed task (`task` is undefined for an unknown id) or an early exit (`task` null). */
  readonly error: (task: T | undefined | null, detail: string) => Error;
}

/**
 * Runs every task. Any failure (a task error, a worker crash or early exit, or `onDone` throwing)
 * rejects and terminates every worker.
 */
export function runInWorkerPool<T, R>(options: WorkerPoolOptions<T, R>): Promise<void> {
  const { tasks, onDone } = options;
  return new Promise<void>((resolve, reject) => {
    const workers: Worker[] = [];
    let next = 0;
    let done = 0;
    let settled = false;
    const stopAll = (): Promise<unknown> => Promise.all(workers.map((w) => w.terminate()));
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      void stopAll().finally(() => reject(err));
    };
    const dispatch = (worker: Worker): void => {
      const task = tasks[next++];
      if (task) worker.postMessage(task);
    };
    const onReply = (worker: Worker, reply: WorkerReply<R>): void => {
      if (settled) return;
      if (!reply.ok) {
        fail(options.error(tasks[reply.id], `${reply.error.name}: ${reply.error.message}`));
        return;
      }
      try {
        onDone(reply.id, reply.result);
      } catch (err) {
        fail(err);
        return;
      }
      if (++done === tasks.length) {
        settled = true;
        stopAll().then(() => resolve(), reject);
      } else {
        dispatch(worker);
      }
    };
    for (let i = 0; i < options.size && !settled; i++) {
      const worker = new Worker(options.workerUrl, { workerData: options.data });
      workers.push(worker);
      worker.on('message', (reply: WorkerReply<R>) => onReply(worker, reply));
      worker.on('error', (err) => fail(err));
      worker.on('exit', (code) => fail(options.error(null, `exited early with code ${code}`)));
      dispatch(worker);
    }
  });
}
