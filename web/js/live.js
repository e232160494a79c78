/**
 * Live updates: reads GET /api/v1/events (server-sent events) with fetch and a stream reader,
 * because EventSource cannot send the Authorization header. Calls `onEvent(name, data)` for each
 * event; reconnects with exponential backoff (1 s doubling to 30 s, reset after a good connect);
 * stops for good on 401 (a revoked or wrong token) and calls `onUnauthorized`.
 */
import { authHeaders } from './api.js';

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

/**
 * Splits an SSE text buffer into complete events; returns them and the unfinished rest.
 * @param {string} buffer
 * @returns {{ events: {event: string, data: string}[], rest: string }}
 */
export function parseSse(buffer) {
  const events = [];
  const blocks = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}

/** A live connection that keeps itself open until `stop()`. */
export class LiveStream {
  /**
   * @param {{ onEvent: (name: string, data: any) => void, onState: (state: 'connecting'|'live'|'waiting', detail:
   * string) => void, onUnauthorized: (message: string) => void }} handlers
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.controller = null;
    this.stopped = true;
    this.backoffMs = MIN_BACKOFF_MS;
    this.retryTimer = null;
  }

  start() {
    this.stopped = false;
    void this.connect();
  }

  stop() {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.controller?.abort();
  }

  async connect() {
    if (this.stopped) return;
    this.handlers.onState('connecting', 'Connecting…');
    this.controller = new AbortController();
    try {
      const response = await fetch('/api/v1/events', {
        headers: { ...authHeaders(), accept: 'text/event-stream' },
        signal: this.controller.signal,
        cache: 'no-store',
      });
      if (response.status === 401) {
        const body = await response.json().catch(() => null);
        this.stopped = true;
        this.handlers.onUnauthorized(body?.error?.message ?? 'the token is not valid');
        return;
      }
      if (!response.ok || !response.body) {
        // e.g. 429: this token holds too many open streams (another tab); the message names the limit.
        const body = await response.json().catch(() => null);
        throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
      }
      this.handlers.onState('live', 'Live');
      this.backoffMs = MIN_BACKOFF_MS;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const { events, rest } = parseSse(buffer);
        buffer = rest;
        for (const { event, data } of events) {
          try {
            this.handlers.onEvent(event, JSON.parse(data));
          } catch (error) {
            console.error('gpushare: a live event could not be shown', error);
          }
        }
      }
      throw new Error('the server closed the stream');
    } catch (error) {
      if (this.stopped) return;
      const wait = this.backoffMs;
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
      this.handlers.onState(
        'waiting',
        `Disconnected (${error instanceof Error ? error.message : String(error)}); retrying in ` +
          `${Math.round(wait / 1000)} s`,
      );
      this.retryTimer = setTimeout(() => void this.connect(), wait);
    }
  }
}
