/**
 * The one ISO 8601 time format the API reads in queries and bodies (`since` of the job list, the bulk
 * cancel and the audit log): a date and a time with a zone, e.g. `2025-01-31T12:00:00Z` or
 * `2025-01-31T13:00:00.5+01:00`. The pattern is exact: every text it matches is a time (months
 * 01-12, days 01-31, hours 00-23, minutes and seconds 00-59, zone offsets up to ±23:59), so that the
 * OpenAPI document's `pattern` states what the server accepts.
 */
import { z } from 'zod';

/** Anchored pattern of an ISO 8601 time with a zone; seconds and up to 9 decimals are optional. */
export const ISO_TIME_WITH_ZONE = new RegExp(
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])/.source +
    /T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?/.source +
    /(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/.source,
);

/**
 * A string that is an ISO 8601 time with a zone ({@link ISO_TIME_WITH_ZONE}); `message` is the
 * error for any other text. Stays a string (callers parse it with `Date.parse`).
 */
export function isoTimeWithZone(message: string) {
  return z
    .string()
    .regex(ISO_TIME_WITH_ZONE, message)
    .refine((text) => !Number.isNaN(Date.parse(text)), message);
}
