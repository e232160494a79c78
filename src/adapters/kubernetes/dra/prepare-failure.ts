/** How a claim's prepare or unprepare fails: a code, structured details and a message. */

/** Codes of {@link PrepareFailure} besides the allocation's (claim-allocation.ts CLAIM_ERROR_CODES). */
export const PREPARE_ERROR_CODES = {
  notFound: 'ClaimNotFound',
  readFailed: 'ClaimReadFailed',
  migCreateFailed: 'MigCreateFailed',
  migDestroyFailed: 'MigDestroyFailed',
  mpsFailed: 'MpsDaemonFailed',
  cdiFailed: 'CdiWriteFailed',
  checkpointFailed: 'CheckpointWriteFailed',
} as const;

/** A claim that could not be prepared or unprepared. */
export class PrepareFailure extends Error {
  override readonly name = 'PrepareFailure';
  constructor(
    readonly code: string,
    readonly details: Readonly<Record<string, string | number>>,
    message: string,
  ) {
    super(message);
  }
  /** The text of the claim's `error` field: `<code>: <message>`. */
  wireError(): string {
    return `${this.code}: ${this.message}`;
  }
}
