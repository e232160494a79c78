/**
 * One output stream of an attempt written to its log file with a size cap (docs/processes.md#log-size-cap):
 * the first `capBytes − tailBytes` bytes go to the file as they come (the head); what comes after
 * is held in memory, only its last `tailBytes` (a quarter of the cap, at most 1 MiB); when the
 * stream ends the file gets `[gpushare: N bytes cut here]` (when bytes were dropped) and that tail.
 * The file only ever grows, so a byte offset names the same byte at any time. Bytes that cannot be
 * written (the disk is full) are counted and the file gets `[gpushare: N bytes lost: the disk was
 * full]` at the next write that succeeds; the command is never stopped or slowed for either.
 *
 * Node built-ins only: the supervisor imports it and runs on its own from dist/.
 */
import { writeSync } from 'node:fs';

/** Default cap of one stream: 64 MiB. */
export const DEFAULT_LOG_CAP_BYTES = 64 << 20;
/** The tail kept is a quarter of the cap, at most this much. */
const MAX_TAIL_BYTES = 1 << 20;

/** The line that marks a cut: `N` bytes of the stream were dropped at this point. */
export function cutMarker(bytes: number): string {
  return `\n[gpushare: ${bytes} bytes cut here]\n`;
}

/** The line that marks bytes the disk had no room for. */
export function lostMarker(bytes: number): string {
  return `\n[gpushare: ${bytes} bytes lost: the disk was full]\n`;
}

/** How a cap splits: the head written as it comes, the tail kept at the end. */
export function capParts(capBytes: number): { headBytes: number; tailBytes: number } {
  const tailBytes = Math.min(MAX_TAIL_BYTES, Math.floor(capBytes / 4));
  return { headBytes: capBytes - tailBytes, tailBytes };
}

/** A capped log writer on an open, appending file descriptor (the caller closes it). */
export class CappedLog {
  private readonly headBytes: number;
  private readonly tailBytes: number;
  /** Stream bytes that went to the head. */
  private headWritten = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  /** Stream bytes dropped from the tail window. */
  private cutBytes = 0;
  /** Bytes the file had no room for, not yet marked. */
  private lostBytes = 0;

  constructor(
    private readonly fd: number,
    capBytes: number,
  ) {
    ({ headBytes: this.headBytes, tailBytes: this.tailBytes } = capParts(capBytes));
  }

  /** Takes the next chunk of the stream. */
  write(chunk: Buffer): void {
    if (this.headWritten < this.headBytes) {
      const n = Math.min(chunk.length, this.headBytes - this.headWritten);
      this.append(chunk.subarray(0, n));
      this.headWritten += n;
      chunk = chunk.subarray(n);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailSize += chunk.length;
    while (this.tailSize > this.tailBytes) {
      const first = this.tail[0]!;
      const excess = this.tailSize - this.tailBytes;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailSize -= first.length;
        this.cutBytes += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailSize -= excess;
        this.cutBytes += excess;
      }
    }
  }

  /** The stream ended: writes the cut marker (when bytes were dropped) and the tail. */
  end(): void {
    if (this.cutBytes > 0) this.append(Buffer.from(cutMarker(this.cutBytes)));
    for (const chunk of this.tail) this.append(chunk);
    this.tail = [];
    this.tailSize = 0;
    if (this.lostBytes > 0) this.append(Buffer.alloc(0));
  }

  /** Appends `data`; what does not fit is counted as lost (marked at the next write that succeeds). */
  private append(data: Buffer): void {
    if (this.lostBytes > 0) {
      const marker = Buffer.from(lostMarker(this.lostBytes));
      if (writePart(this.fd, marker) < marker.length) {
        this.lostBytes += data.length;
        return;
      }
      this.lostBytes = 0;
    }
    this.lostBytes += data.length - writePart(this.fd, data);
  }
}

/** Appends `data` to `fd` until done or a write fails (ENOSPC, EDQUOT); returns the bytes written. */
function writePart(fd: number, data: Buffer): number {
  let offset = 0;
  try {
    while (offset < data.length) offset += writeSync(fd, data, offset);
  } catch {
    // no room: the caller counts the rest as lost
  }
  return offset;
}
