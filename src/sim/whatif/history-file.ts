/**
 * Reads a history trace (the file `gpushare history export` writes, or any pod list of the
 * simulator's format with times) into the jobs the what-if replays run.
 */
import { parsePodListCsv } from '../traces/alibaba-csv.js';
import { TraceFormatError } from '../traces/trace-types.js';
import { readScheduledTimes } from '../timeline/scheduled-times.js';
import { priorityOfQos } from '../timeline/qos-priority.js';
import { historyJobs, type History, type HistoryRecord } from './history-jobs.js';

/**
 * Parses a history trace. Rows without a start or an end (jobs that never ran) are left out.
 * @param source the file (or "the server"), for messages
 * @throws TraceFormatError for a malformed file, or one in which no job has submit, start and end times
 */
export function parseHistory(text: string, source: string): History {
  if (text.split(/\r?\n/).filter((line) => line.trim() !== '').length <= 1)
    throw new TraceFormatError(source, null, null, 'the history has no job that ran and ended');
  const pods = parsePodListCsv(text, source);
  const scheduled = readScheduledTimes(text);
  const records: HistoryRecord[] = [];
  for (const pod of pods) {
    const scheduledTimeSeconds = scheduled.get(pod.name) ?? null;
    const { creationTimeSeconds, deletionTimeSeconds } = pod;
    if (creationTimeSeconds === null || deletionTimeSeconds === null || scheduledTimeSeconds === null) continue;
    records.push({ ...pod, creationTimeSeconds, scheduledTimeSeconds, deletionTimeSeconds });
  }
  if (records.length === 0)
    throw new TraceFormatError(source, null, null, 'no job has creation_time, scheduled_time and deletion_time');
  return historyJobs(records, priorityOfQos);
}
