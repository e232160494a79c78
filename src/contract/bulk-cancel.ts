/**
 * `POST /api/v1/jobs/cancel`: cancel many jobs in one call (docs/server.md "Cancelling many jobs").
 * A selector names the jobs: ids, and/or filters (states, tenant, name pattern, submitted since),
 * combined with AND; at least one of them is required, so that no call cancels everything by
 * accident.
 */
import { z } from 'zod';
import { JOB_STATES, isTerminal, type JobState } from '../core/index.js';
import { MAX_NAME_PATTERN_LENGTH } from '../lib/name-pattern.js';
import { printableName, TENANT_NAME } from './api.js';
import { isoTimeWithZone } from './iso-time.js';
import { documented } from './openapi-notes.js';

/** Most ids one call may name. */
export const MAX_BULK_CANCEL_IDS = 10_000;

/** Most characters of a bulk cancel's `reason`. */
export const MAX_CANCEL_REASON_LENGTH = 256;

/** The states a job can be cancelled in (every non-terminal state). */
export const CANCELLABLE_STATES = JOB_STATES.filter((s) => !isTerminal(s)) as [JobState, ...JobState[]];

/** The body fields that select jobs; a call needs at least one. */
export const BULK_CANCEL_SELECTORS = ['ids', 'state', 'tenant', 'name', 'since'] as const;

/** An ISO 8601 time with a date, a time and a zone, e.g. `2025-01-31T12:00:00Z`. */
const ISO_TIME = isoTimeWithZone('must be an ISO 8601 time with a zone, e.g. 2025-01-31T12:00:00Z');

/** `POST /api/v1/jobs/cancel` body. */
export const BulkCancelSchema = documented(
  z
    .object({
      ids: documented(z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).min(1).max(MAX_BULK_CANCEL_IDS), {
        uniqueItems: true,
      })
        .refine(
          (ids) => new Set(ids).size === ids.length,
          (ids) => ({ message: `ids must be distinct; ${ids.find((id, i) => ids.indexOf(id) !== i)} is named twice` }),
        )
        .optional()
        .describe(`only these job ids (1 to ${MAX_BULK_CANCEL_IDS} distinct ids)`),
      state: z
        .array(z.enum(CANCELLABLE_STATES))
        .min(1)
        .max(CANCELLABLE_STATES.length)
        .optional()
        .describe(`only jobs in these states (${CANCELLABLE_STATES.join(', ')}); default: all of them`),
      tenant: TENANT_NAME.optional().describe("only this tenant's jobs"),
      name: printableName(MAX_NAME_PATTERN_LENGTH)
        .optional()
        .describe('only jobs whose whole name matches this pattern; * matches any run of characters'),
      since: ISO_TIME.optional().describe('only jobs submitted at or after this ISO 8601 time'),
      reason: printableName(MAX_CANCEL_REASON_LENGTH)
        .optional()
        .describe(
          `why, 1-${MAX_CANCEL_REASON_LENGTH} printable characters: each job's reason becomes "cancelled by ` +
            `<who>: <reason>"`,
        ),
      dryRun: z.boolean().default(false).describe('true: answer what would be cancelled, change nothing (not audited)'),
    })
    .strict(),
  { anyOf: BULK_CANCEL_SELECTORS.map((field) => ({ required: [field] })) },
)
  .superRefine((body, ctx) => {
    if (BULK_CANCEL_SELECTORS.every((field) => body[field] === undefined)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `give at least one of ${BULK_CANCEL_SELECTORS.join(', ')} (no call cancels every job)`,
      });
    }
  })
  .describe(`at least one of ${BULK_CANCEL_SELECTORS.join(', ')}; they combine with AND`);
/** A bulk cancel request (after defaults). */
export type BulkCancel = z.infer<typeof BulkCancelSchema>;
/** A bulk cancel request as a client sends it. */
export type BulkCancelInput = z.input<typeof BulkCancelSchema>;

/**
 * Why a job named by id was not cancelled: `not-found` (no such job, or another tenant's),
 * `not-allowed` (a fellow member's job), `already-ended` (a terminal state), `not-matched` (outside
 * the call's other selectors).
 */
export const SKIP_REASONS = ['not-found', 'not-allowed', 'already-ended', 'not-matched'] as const;
/** One of {@link SKIP_REASONS}. */
export type SkipReason = (typeof SKIP_REASONS)[number];

/** `POST /api/v1/jobs/cancel` answer. */
export const BulkCancelResultSchema = z.object({
  dryRun: z.boolean().describe('true: nothing was changed; the lists say what would be'),
  cancelled: z.array(z.number().int()).describe('ids of jobs that were pending or preempted, now cancelled, ascending'),
  stopping: z
    .array(z.number().int())
    .describe('ids of jobs that were scheduled or running: their stop is requested, they end cancelled, ascending'),
  skipped: z
    .array(z.object({ id: z.number().int(), reason: z.enum(SKIP_REASONS), message: z.string() }))
    .describe('ids named in the call that were not cancelled, ascending, each with why'),
  reason: z.string().describe('the reason the cancelled jobs got, e.g. "cancelled by an admin: maintenance"'),
});
/** A bulk cancel's answer. */
export type BulkCancelResult = z.infer<typeof BulkCancelResultSchema>;
