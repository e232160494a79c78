/**
 * Thrown only when the core detects a bug: a state that its own contracts forbid, such as an
 * allocation that would over-commit a GPU. Expected outcomes (a pod that does not fit) are data,
 * never exceptions.
 */
export class InvariantViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvariantViolation';
  }
}
