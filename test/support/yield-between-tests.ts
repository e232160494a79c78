/**
 * Setup file of both vitest configs: after every test, one turn of the event loop. vitest's
 * worker talks to the main process over an RPC whose calls time out after 60 s, and the reply is
 * read only when the worker's event loop reaches its poll phase; between synchronous tests the
 * runner continues on promise callbacks alone, so a file of CPU-bound tests (trace replays) would
 * otherwise hold the reply unread for the whole file and fail the run ("Timeout calling
 * onTaskUpdate") although every test passed. With this, only a single test over 60 s could.
 */
import { afterEach } from 'vitest';

afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
