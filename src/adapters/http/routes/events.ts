/**
 * `GET /api/v1/events`: the dashboard's live updates as server-sent events (text/event-stream),
 * authenticated with the bearer token like every `/api/v1` call.
 *
 * - `event: snapshot`: the whole dashboard snapshot the caller may see (dashboard-snapshot.ts; a
 *   tenant's holds only its jobs), once at connect and then at most every `SNAPSHOT_MIN_GAP_MS`
 *   while the control plane reports events (job transitions, passes that placed jobs, GPU changes,
 *   QoS) and after each usage sample (measured use and waiting reasons change without an event);
 *   a client that does not read gets the latest snapshot once its socket drains, and is dropped
 *   when `MAX_BUFFERED_BYTES` wait for it;
 * - `event: usage`: each new usage-history sample (the chart's next point);
 * - a `: heartbeat` comment every `HEARTBEAT_MS`, so proxies and clients see the stream is alive;
 * - `event: unauthorized` with the reason, and the end of the stream, within `TOKEN_CHECK_MS` of its
 *   token being revoked, rotated or expiring (the token is checked again then and before each
 *   snapshot, as every request checks it).
 *
 * A token may hold only so many open streams, and the server only so many in all (429 naming the
 * limit; app/auth/api-limits.ts); a closed stream frees its slot. Listeners and timers are removed
 * when the client disconnects or the server closes.
 */
import type { ServerResponse } from 'node:http';
import { toUsageSampleView } from '../../../app/services/dashboard-snapshot.js';
import { authorize } from '../../../app/auth/authorize.js';
import type { ServerServices } from '../server-services.js';
import type { Api } from './jobs.js';

/** Least time between two snapshots of one stream, ms. */
export const SNAPSHOT_MIN_GAP_MS = 500;
/** Time between heartbeat comments, ms. */
export const HEARTBEAT_MS = 15_000;
/** Time between checks that an open stream's token is still valid, ms. */
export const TOKEN_CHECK_MS = 1000;
/** Bytes a stream may hold unsent for a client that does not read before it is dropped. */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** Registers the event-stream route. */
export function registerEventRoutes(api: Api, services: ServerServices): void {
  const open = new Set<(destroy: boolean) => void>();
  // An open stream never ends by itself: end them all so that closing the server does not wait.
  api.addHook('preClose', async () => {
    for (const close of [...open]) close(true);
  });
  api.get(
    '/events',
    { schema: { tags: ['dashboard'], summary: 'Live dashboard snapshots (text/event-stream)' } },
    async (request, reply) => {
      const principal = request.principal;
      const authorization = request.headers.authorization;
      authorize(principal, 'events.read');
      // At most so many open streams per token and in all (429 naming the limit); freed on close.
      const release = services.limits?.openStream(principal) ?? (() => undefined);
      const raw: ServerResponse = reply.raw;
      reply.hijack();
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // Backpressure: a client that does not read gets no new snapshot until its socket drains (the
      // latest state is sent then), and is dropped once MAX_BUFFERED_BYTES are waiting for it.
      // A snapshot bigger than the socket's buffer also reports congestion, so the drain resends only
      // when a snapshot was skipped meanwhile (otherwise every big snapshot would cause the next).
      let congested = false;
      let skipped = false;
      const write = (text: string): void => {
        if (raw.writableEnded || raw.destroyed) return;
        if (raw.writableLength > MAX_BUFFERED_BYTES) {
          close(true);
          return;
        }
        if (!raw.write(text) && !congested) {
          congested = true;
          raw.once('drain', () => {
            congested = false;
            if (skipped) {
              skipped = false;
              schedule();
            }
          });
        }
      };
      let lastSentMs = 0;
      let pending: NodeJS.Timeout | null = null;
      /** Whether the stream's token still authenticates; if not, says why and ends the stream. */
      const tokenValid = (): boolean => {
        try {
          services.admin.authenticate(authorization);
          return true;
        } catch (error) {
          write(
            `event: unauthorized\ndata: ` +
              `${JSON.stringify({ status: 401, message: error instanceof Error ? error.message : 'unauthorized' })}` +
              `\n\n`,
          );
          close();
          return false;
        }
      };
      const sendSnapshot = (): void => {
        pending = null;
        if (!tokenValid()) return;
        if (congested) {
          skipped = true; // sent when the socket drains
          return;
        }
        lastSentMs = Date.now();
        try {
          write(`event: snapshot\ndata: ${JSON.stringify(services.dashboard(principal))}\n\n`);
        } catch (error) {
          request.log.warn({ err: error }, 'building a dashboard snapshot failed');
        }
      };
      const schedule = (): void => {
        if (pending !== null) return;
        pending = setTimeout(sendSnapshot, Math.max(0, lastSentMs + SNAPSHOT_MIN_GAP_MS - Date.now()));
      };
      // A pass that placed nothing changes only waiting reasons; they follow with the next usage sample.
      const offPlane = services.plane.events.on((event) => {
        if (event.type !== 'pass' || event.placedJobs > 0) schedule();
      });
      // A new usage sample also refreshes the snapshot: measured use changes without any plane event.
      const offUsage = services.usageHistory.onSample((sample) => {
        write(`event: usage\ndata: ${JSON.stringify(toUsageSampleView(sample))}\n\n`);
        schedule();
      });
      const heartbeat = setInterval(() => write(': heartbeat\n\n'), HEARTBEAT_MS);
      const tokenCheck = setInterval(tokenValid, TOKEN_CHECK_MS);
      let closed = false;
      /** Stops this stream; `destroy` also drops the connection (the server is closing). */
      const close = (destroy = false): void => {
        if (!closed) {
          closed = true;
          offPlane();
          offUsage();
          clearInterval(heartbeat);
          clearInterval(tokenCheck);
          if (pending !== null) clearTimeout(pending);
          open.delete(close);
          release();
          // End the chunked response first, so that the client sees a complete stream.
          if (!raw.writableEnded) raw.end();
        }
        if (destroy) raw.socket?.destroySoon();
      };
      open.add(close);
      raw.on('close', () => close());
      write('retry: 2000\n\n');
      sendSnapshot();
    },
  );
}
