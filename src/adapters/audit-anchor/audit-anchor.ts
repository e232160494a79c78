/**
 * The audit anchor (`--audit-anchor-command`, docs/security.md "Anchoring the head elsewhere"): one
 * long-lived process, `/bin/sh -c <command>`, that receives the audit log's new heads on its
 * standard input, one line `seq hash` each, and sends them where the server's users cannot rewrite
 * them (syslog, another host, a write-once bucket).
 *
 * - A head is sent per batch like the journal's: once `batchEntries` entries were appended since
 *   the last head queued, at most `maxDelayMs` after an entry not yet queued, at start and on close.
 * - The queue holds at most `queueHeads` heads; on overflow the oldest are dropped (counted): a head
 *   witnesses every entry before it, so the newest is the one that matters.
 * - A head counts as anchored once its line is written to the process's pipe and the process still
 *   runs 250 ms later (a command that exits at once, before reading, does not count), or the process
 *   exits with status 0 after the server closed its input at stop; the last one is kept in
 *   `<data-dir>/audit-anchored` (anchored-head-file.ts), which `gpushare audit verify` reads.
 * - When the process exits or its pipe breaks, the heads not yet written stay queued and it is
 *   started again after a backoff (1 s, doubling to 60 s; back to 1 s once a head is written). The
 *   server keeps running meanwhile; {@link AuditAnchor.status} says so (/healthz, metrics).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeAnchoredHead, readAnchoredHead, type AnchoredHead } from './anchored-head-file.js';

/** Default most heads waiting to be written to the anchor. */
export const DEFAULT_ANCHOR_QUEUE_HEADS = 1000;
/** First and longest wait before the anchor command is started again, ms. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** How long the process must still run after a head is written to it for the head to count as anchored, ms. */
const CONFIRM_AFTER_MS = 250;
/** How long the process may take to exit after its input is closed at stop, ms, before SIGTERM. */
const STOP_GRACE_MS = 5000;
/** Most characters of the process's standard error logged per chunk. */
const STDERR_LOG_CHARS = 1000;

/** Where the anchor reports (the server's logger). */
export interface AnchorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link startAuditAnchor}. */
export interface AuditAnchorOptions {
  /** The shell command (run with `/bin/sh -c`). */
  readonly command: string;
  /** `<data-dir>/audit-anchored`. */
  readonly statePath: string;
  readonly logger: AnchorLogger;
  /** The store's head at start: sent first when the anchor has not had it. */
  readonly head: AnchoredHead;
  /** Queue a head once this many entries were appended since the last one. Default 100. */
  readonly batchEntries?: number;
  /** Queue a head at most this long after an entry not yet queued, ms. Default 1000. */
  readonly maxDelayMs?: number;
  /** Most heads queued. Default {@link DEFAULT_ANCHOR_QUEUE_HEADS}. */
  readonly queueHeads?: number;
}

/** What the anchor is doing now. */
export interface AuditAnchorStatus {
  /** The process runs and its pipe is open. */
  readonly up: boolean;
  /** The last head written to the process (0 when none ever was). */
  readonly anchoredSeq: number;
  /** The newest entry's seq. */
  readonly headSeq: number;
  /** Heads waiting to be written. */
  readonly queuedHeads: number;
  /** Heads dropped because the queue was full, since start. */
  readonly droppedHeads: number;
  /** Times the process was started again after it exited or its pipe broke, since start. */
  readonly restarts: number;
}

/** A running anchor. */
export interface AuditAnchor {
  /** Notes the newest entry (called for every appended entry). */
  offer(seq: number, hash: string): void;
  status(): AuditAnchorStatus;
  /** Queues the newest head, closes the process's input (it should exit), SIGTERM after 5 s. Idempotent. */
  close(): void;
}

/** Starts the anchor command. @throws Error of the system when the state file exists but cannot be read */
export function startAuditAnchor(options: AuditAnchorOptions): AuditAnchor {
  const { logger, command } = options;
  const batch = Math.max(1, options.batchEntries ?? 100);
  const delayMs = Math.max(0, options.maxDelayMs ?? 1000);
  const queueMax = Math.max(1, options.queueHeads ?? DEFAULT_ANCHOR_QUEUE_HEADS);
  let anchored: AnchoredHead = readAnchoredHead(options.statePath) ?? { seq: 0, hash: '' };
  let latest: AnchoredHead = options.head;
  let lastQueuedSeq = anchored.seq;
  let queue: AnchoredHead[] = [];
  /** Heads written to the pipe whose write has not completed yet, oldest first. */
  let inFlight: AnchoredHead[] = [];
  let child: ChildProcess | null = null;
  let up = false;
  let closed = false;
  let backoffMs = FIRST_BACKOFF_MS;
  let restarts = 0;
  let dropped = 0;
  let batchTimer: NodeJS.Timeout | null = null;
  let restartTimer: NodeJS.Timeout | null = null;
  let persistScheduled = false;

  const persist = (): void => {
    persistScheduled = false;
    try {
      writeAnchoredHead(options.statePath, anchored);
    } catch (error) {
      logger.error({ err: error, path: options.statePath }, 'audit anchor: cannot record the last anchored head');
    }
  };
  const confirmed = (head: AnchoredHead): void => {
    inFlight = inFlight.filter((h) => h !== head);
    if (head.seq <= anchored.seq) return;
    anchored = head;
    backoffMs = FIRST_BACKOFF_MS;
    if (!persistScheduled) {
      persistScheduled = true;
      setImmediate(persist);
    }
  };
  const pump = (): void => {
    if (!up || child === null) return;
    const stdin = child.stdin!;
    while (queue.length > 0) {
      const head = queue.shift()!;
      inFlight.push(head);
      const writtenTo = child;
      stdin.write(`${head.seq} ${head.hash}\n`, (error) => {
        if (error !== null && error !== undefined) return;
        setTimeout(() => {
          if (child === writtenTo && up) confirmed(head);
        }, CONFIRM_AFTER_MS).unref();
      });
    }
  };
  const enqueue = (): void => {
    if (batchTimer !== null) clearTimeout(batchTimer);
    batchTimer = null;
    if (latest.seq <= lastQueuedSeq) return;
    lastQueuedSeq = latest.seq;
    queue.push(latest);
    if (queue.length > queueMax) {
      dropped += queue.length - queueMax;
      queue = queue.slice(queue.length - queueMax);
    }
    pump();
  };
  const down = (why: string): void => {
    if (child === null) return;
    const was = child;
    child = null;
    up = false;
    // At stop no process follows: the heads written stay in flight for the exit's verdict (close()).
    if (closed) return;
    // Heads whose write did not complete go to the next process.
    queue = [...inFlight, ...queue].slice(-queueMax);
    inFlight = [];
    if (was.exitCode === null && was.signalCode === null) was.kill('SIGTERM');
    logger.warn(
      { command, retryInMs: backoffMs, anchoredSeq: anchored.seq, headSeq: latest.seq },
      `audit anchor: ${why}; starting it again in ${backoffMs} ms (the server keeps running; entries after ` +
        `${anchored.seq} are not anchored)`,
    );
    restartTimer = setTimeout(() => {
      restartTimer = null;
      restarts += 1;
      launch();
    }, backoffMs);
    restartTimer.unref();
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
  };
  const launch = (): void => {
    if (closed) return;
    const started = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'pipe'] });
    child = started;
    started.once('spawn', () => {
      if (child !== started) return;
      up = true;
      logger.info({ command, pid: started.pid }, 'audit anchor: started');
      pump();
      // Stopped before the process had started: it gets the heads, then the end of its input.
      if (closed) started.stdin!.end();
    });
    started.once('error', (error) => {
      if (child === started) down(`cannot start: ${error.message}`);
    });
    started.once('exit', (code, signal) => {
      if (child === started) down(`exited (${signal ?? `code ${code}`})`);
    });
    started.stdin!.on('error', (error) => {
      if (child === started) down(`its input broke: ${error.message}`);
    });
    started.stderr!.on('data', (chunk: Buffer) =>
      logger.warn({ command }, `audit anchor: ${chunk.toString('utf8').slice(0, STDERR_LOG_CHARS).trimEnd()}`),
    );
  };

  launch();
  enqueue();
  return {
    offer: (seq, hash) => {
      if (closed) return;
      latest = { seq, hash };
      if (seq - lastQueuedSeq >= batch) enqueue();
      else if (batchTimer === null) {
        batchTimer = setTimeout(enqueue, delayMs);
        batchTimer.unref();
      }
    },
    status: () => ({
      up,
      anchoredSeq: anchored.seq,
      headSeq: latest.seq,
      queuedHeads: queue.length + inFlight.length,
      droppedHeads: dropped,
      restarts,
    }),
    close: () => {
      if (closed) return;
      enqueue();
      closed = true;
      if (restartTimer !== null) clearTimeout(restartTimer);
      const running = child;
      if (running === null) return;
      if (up) running.stdin!.end();
      const kill = setTimeout(() => running.kill('SIGTERM'), STOP_GRACE_MS);
      running.once('exit', (code) => {
        clearTimeout(kill);
        // It read its input to the end and exited cleanly: it has every head written to it.
        if (code === 0) for (const head of [...inFlight]) confirmed(head);
        if (persistScheduled) persist();
      });
    },
  };
}
