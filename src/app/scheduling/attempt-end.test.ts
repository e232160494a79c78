import { describe, expect, it } from 'vitest';
import { JOB_EVENT_CODES, jobEventReason, statusMessage, type JobEventReason } from '../../core/index.js';
import { decideAttemptEnd, type StopIntent } from './attempt-end.js';

/** The intents of the table, as gpushare records them. */
function intentOf(intent: { kind: string } | undefined): StopIntent | undefined {
  if (intent?.kind === 'cancelled')
    return {
      kind: 'cancelled',
      reason: jobEventReason(JOB_EVENT_CODES.cancelled, { by: 'admin', tenant: null, note: null }),
    };
  if (intent?.kind === 'preempted')
    return {
      kind: 'preempted',
      reason: jobEventReason(JOB_EVENT_CODES.preempted, {
        preemptorJobId: 9,
        preemptorPriority: 900,
        preemptorTenant: 'a',
      }),
    };
  if (intent?.kind === 'host-limit')
    return {
      kind: 'host-limit',
      reason: jobEventReason(JOB_EVENT_CODES.processLimit, { pidsMax: 64, forksRefused: 5 }),
    };
  return intent === undefined ? undefined : { kind: 'time-limit' };
}

/** An attempt's end in the API's words (views.ts). */
const endLine = (reason: JobEventReason): string =>
  reason.code === 'exited' ? 'exited' : reason.code === 'preempted' ? 'preempted' : statusMessage(reason);

describe('decideAttemptEnd', () => {
  it.each([
    [
      'exit 0',
      { exitCode: 0, signal: null },
      undefined,
      0,
      0,
      { to: 'succeeded', reason: 'exit code 0', endReason: 'exited', terminal: true },
    ],
    [
      'exit 3, no retries',
      { exitCode: 3, signal: null },
      undefined,
      0,
      0,
      { to: 'failed', reason: 'exit code 3', endReason: 'exited', terminal: true },
    ],
    [
      'exit 3, 1 retry left',
      { exitCode: 3, signal: null },
      undefined,
      0,
      1,
      { to: 'pending', reason: 'retry 1 of 1 after exit code 3', endReason: 'exited', terminal: false },
    ],
    [
      'exit 3, retries used',
      { exitCode: 3, signal: null },
      undefined,
      1,
      1,
      { to: 'failed', reason: 'exit code 3', endReason: 'exited', terminal: true },
    ],
    [
      'lost, 2 retries',
      null,
      undefined,
      0,
      2,
      { to: 'pending', reason: 'retry 1 of 2 after lost', endReason: 'lost', terminal: false },
    ],
    [
      'killed',
      { exitCode: null, signal: 'SIGKILL' },
      undefined,
      0,
      0,
      { to: 'failed', reason: 'killed by SIGKILL', endReason: 'killed by SIGKILL', terminal: true },
    ],
    [
      'time limit',
      { exitCode: null, signal: 'SIGTERM' },
      { kind: 'time-limit' },
      0,
      3,
      { to: 'failed', reason: 'time-limit', endReason: 'time-limit', terminal: true },
    ],
    [
      'process limit, no retries: killed by the server, whatever the exit status',
      { exitCode: null, signal: 'SIGKILL' },
      { kind: 'host-limit' },
      0,
      0,
      {
        to: 'failed',
        reason: 'process limit: more than 64 processes (5 fork(s) refused)',
        endReason: 'process limit: more than 64 processes (5 fork(s) refused)',
        terminal: true,
      },
    ],
    [
      'process limit, 1 retry left',
      { exitCode: 0, signal: null },
      { kind: 'host-limit' },
      0,
      1,
      {
        to: 'pending',
        reason: 'retry 1 of 1 after process limit: more than 64 processes (5 fork(s) refused)',
        endReason: 'process limit: more than 64 processes (5 fork(s) refused)',
        terminal: false,
      },
    ],
    [
      'cancel',
      { exitCode: 143, signal: null },
      { kind: 'cancelled', reason: 'cancelled by an admin' },
      0,
      3,
      { to: 'cancelled', reason: 'cancelled by an admin', endReason: 'cancelled by an admin', terminal: true },
    ],
    [
      'preempted: checkpointed and exited 0 on the signal',
      { exitCode: 0, signal: null, signalDeliveredAtMs: 5_000 },
      { kind: 'preempted', reason: 'preempted by job 9' },
      0,
      0,
      {
        to: 'preempted',
        reason: 'preempted by job 9 (priority 900, tenant a)',
        endReason: 'preempted',
        terminal: false,
      },
    ],
    [
      'preempted: exit 1 after the signal',
      { exitCode: 1, signal: null, signalDeliveredAtMs: 5_000 },
      { kind: 'preempted', reason: 'preempted by job 9' },
      0,
      0,
      {
        to: 'preempted',
        reason: 'preempted by job 9 (priority 900, tenant a)',
        endReason: 'preempted',
        terminal: false,
      },
    ],
    [
      'preempted: killed after grace',
      { exitCode: null, signal: 'SIGKILL', signalDeliveredAtMs: 5_000 },
      { kind: 'preempted', reason: 'preempted by job 9' },
      5,
      0,
      {
        to: 'preempted',
        reason: 'preempted by job 9 (priority 900, tenant a)',
        endReason: 'preempted',
        terminal: false,
      },
    ],
    [
      'preempted: vanished without an outcome',
      null,
      { kind: 'preempted', reason: 'preempted by job 9' },
      0,
      0,
      {
        to: 'preempted',
        reason: 'preempted by job 9 (priority 900, tenant a)',
        endReason: 'preempted',
        terminal: false,
      },
    ],
    [
      'preempted: outcome of an older supervisor (delivery not recorded)',
      { exitCode: 0, signal: null },
      { kind: 'preempted', reason: 'preempted by job 9' },
      0,
      0,
      {
        to: 'preempted',
        reason: 'preempted by job 9 (priority 900, tenant a)',
        endReason: 'preempted',
        terminal: false,
      },
    ],
    [
      'exited 0 before the preemption signal was sent',
      { exitCode: 0, signal: null, signalDeliveredAtMs: null },
      { kind: 'preempted', reason: 'preempted by job 9' },
      0,
      0,
      { to: 'succeeded', reason: 'exit code 0', endReason: 'exited', terminal: true },
    ],
    [
      'failed on its own before the preemption signal',
      { exitCode: 2, signal: null, signalDeliveredAtMs: null },
      { kind: 'preempted', reason: 'preempted by job 9' },
      0,
      1,
      { to: 'pending', reason: 'retry 1 of 1 after exit code 2', endReason: 'exited', terminal: false },
    ],
    [
      'could not start (E2BIG)',
      { exitCode: null, signal: null, error: 'could not start: E2BIG (the argument list is too long)' },
      undefined,
      0,
      0,
      {
        to: 'failed',
        reason: 'could not start: E2BIG (the argument list is too long)',
        endReason: 'could not start: E2BIG (the argument list is too long)',
        terminal: true,
      },
    ],
    [
      'could not start (ENOENT), 1 retry left',
      { exitCode: null, signal: null, error: 'could not start: ENOENT (no such file or directory)' },
      undefined,
      0,
      1,
      {
        to: 'pending',
        reason: 'retry 1 of 1 after could not start: ENOENT (no such file or directory)',
        endReason: 'could not start: ENOENT (no such file or directory)',
        terminal: false,
      },
    ],
  ] as const)('%s', (_name, outcome, intent, failuresBefore, retries, expected) => {
    const end = decideAttemptEnd(outcome, intentOf(intent), failuresBefore, retries);
    expect({ ...end, reason: statusMessage(end.reason), endReason: endLine(end.endReason) }).toEqual(expected);
  });
});
