/**
 * The `scheduled_time` column of a pod list. The shared reader (traces/alibaba-csv.ts) validates
 * it but does not return it; the timeline replay needs it for run durations
 * (`deletion_time − scheduled_time`).
 */

/**
 * Reads `scheduled_time` per pod name from a pod-list CSV that `parsePodListCsv` has already
 * accepted (so the header, cell counts and numbers are known to be well formed).
 * @param text whole file contents
 * @returns seconds per pod name (from the trace start in the Alibaba files, since the Unix epoch with
 *   up to 3 decimals in a gpushare history export); null when the cell is empty or the file has no
 *   `scheduled_time` column
 */
export function readScheduledTimes(text: string): Map<string, number | null> {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((c) => c.trim());
  const nameAt = header.indexOf('name');
  const timeAt = header.indexOf('scheduled_time');
  const times = new Map<string, number | null>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const cells = line.split(',');
    const cell = timeAt < 0 ? '' : (cells[timeAt] ?? '').trim();
    times.set((cells[nameAt] ?? '').trim(), cell === '' ? null : Number(cell));
  }
  return times;
}
