/**
 * Reading an annotation whose value is JSON of a known shape (the node inventory, the pod
 * assignment): absent, well-formed, or an error naming the annotation and the first bad field.
 */
import type { z } from 'zod';

/**
 * The value of annotation `key` checked against `schema`.
 * @returns the parsed value, null when the annotation is absent, or an error message
 */
export function parseJsonAnnotation<T>(
  annotations: Readonly<Record<string, string>> | undefined,
  key: string,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
): T | null | { error: string } {
  const raw = annotations?.[key];
  if (raw === undefined) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { error: `annotation ${key} is not JSON` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: `annotation ${key}: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return parsed.data;
}
