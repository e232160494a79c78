/**
 * Reading a Status's details when writing its line (wait-message.ts, event-message.ts,
 * preemption-message.ts, refusal-message.ts): each figure as the type the line needs, with a
 * neutral value for a figure that is absent or of another type (a line never throws).
 */
import type { Status, StatusDetail, StatusDetails } from './status.js';

/** A number figure; 0 when absent. */
export function figure(value: StatusDetail | undefined): number {
  return typeof value === 'number' ? value : 0;
}

/** A name or number as text, a list joined by `, `; '' when absent. */
export function words(value: StatusDetail | undefined): string {
  if (Array.isArray(value)) return (value as readonly StatusDetail[]).map(words).join(', ');
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** The records of a list figure (e.g. `gpus`); none when absent. */
export function records(value: StatusDetail | undefined): StatusDetails[] {
  if (!Array.isArray(value)) return [];
  return (value as readonly StatusDetail[]).filter(
    (v): v is StatusDetails => typeof v === 'object' && v !== null && !Array.isArray(v),
  );
}

/** A nested Status (strict isolation's two searches, a retry's failure, a node's refusal), or null. */
export function nestedStatus(value: StatusDetail | undefined): Status | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const candidate = value as StatusDetails;
  return typeof candidate.code === 'string' && typeof candidate.details === 'object'
    ? (candidate as unknown as Status)
    : null;
}
