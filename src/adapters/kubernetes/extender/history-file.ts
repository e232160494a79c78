/**
 * The extender's `--history-file`: an append-only history export (contract/history.ts) on disk.
 * Opening it makes it with the header when it is missing or empty, reads the names of the rows it
 * holds (so a restarted extender writes no pod twice), and cuts a last line without its newline (a
 * row torn by a crash) so that every row stays whole. Each row is appended with one write.
 */
import { appendFileSync, readFileSync, truncateSync } from 'node:fs';
import { historyCsvHeader } from '../../../contract/history.js';
import type { PodHistorySink } from './pod-history.js';

/**
 * Opens (or makes) the history file at `path`.
 * @throws Error naming the file when it cannot be read or written, or its first line is not the header
 */
export function openHistoryFile(path: string): PodHistorySink {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    text = '';
  }
  const header = historyCsvHeader();
  if (text === '') appendFileSync(path, header);
  else {
    if (!text.startsWith(header))
      throw new Error(
        `--history-file ${path} is not a history export: its first line is not the header ${header.trimEnd()}`,
      );
    if (!text.endsWith('\n')) {
      const whole = text.lastIndexOf('\n') + 1;
      truncateSync(path, Buffer.byteLength(text.slice(0, whole)));
      text = text.slice(0, whole);
    }
  }
  const names = new Set(
    text
      .slice(header.length)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split(',')[0]!),
  );
  return { names, append: (line) => appendFileSync(path, line) };
}
