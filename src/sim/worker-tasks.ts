/**
 * The worker side of worker-pool.ts: a worker thread loads its input once from `workerData`, then
 * answers each task message with `{ id, ok: true, result }` or `{ id, ok: false, error }`. A load
 * failure is reported with every task. Does nothing outside a worker thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerReply } from './worker-pool.js';

/**
 * Serves the tasks of this worker thread.
 * @param load builds the input from the pool's `workerData` (once)
 * @param run answers one task from the input
 */
export function serveWorkerTasks<D, I, T extends { readonly id: number }, R>(
  load: (data: D) => Promise<I>,
  run: (input: I, task: T) => R,
): void {
  const port = parentPort;
  if (!port) return;
  const input = load(workerData as D);
  input.catch(() => undefined); // reported with the first task instead
  port.on('message', (task: T) => {
    void (async (): Promise<void> => {
      let reply: WorkerReply<R>;
      try {
        reply = { id: task.id, ok: true, result: run(await input, task) };
      } catch (err) {
        const error =
          err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
        reply = { id: task.id, ok: false, error };
      }
      port.postMessage(reply);
    })();
  });
}
