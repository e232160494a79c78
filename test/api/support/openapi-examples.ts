/**
 * The server's OpenAPI document, read as data: its operations and their summaries, and a copy with
 * explicit examples added for the inputs random data cannot hit (an existing job id, a command
 * that exists on the server), so that Schemathesis's `examples` phase sends at least one request
 * each such operation can accept. Every other input stays random.
 */

/** `METHOD /path/{template}` of an operation, e.g. `GET /api/v1/jobs/{id}`. */
export type OperationKey = string;

/** Examples for one operation: path or query parameter values by name, and a JSON body. */
export interface OperationExample {
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- an OpenAPI 3 document is walked as plain JSON */

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** The operations of `spec` (an OpenAPI 3 document) with their summaries, in document order. */
export function listOperations(spec: any): { key: OperationKey; summary: string }[] {
  const operations: { key: OperationKey; summary: string }[] = [];
  for (const [path, item] of Object.entries<any>(spec.paths ?? {})) {
    for (const method of METHODS.filter((m) => item[m] !== undefined)) {
      operations.push({ key: `${method.toUpperCase()} ${path}`, summary: String(item[method].summary ?? '') });
    }
  }
  return operations;
}

/**
 * A deep copy of `spec` with `examples` set: each parameter named gets `example`, a body gets
 * `requestBody.content['application/json'].example`.
 * @throws Error naming an operation, parameter or body the document does not have (a stale example)
 */
export function withExamples(spec: any, examples: Readonly<Record<OperationKey, OperationExample>>): any {
  const copy = structuredClone(spec);
  for (const [key, example] of Object.entries(examples)) {
    const [method, path] = key.split(' ') as [string, string];
    const operation = copy.paths?.[path]?.[method.toLowerCase()];
    if (operation === undefined) throw new Error(`example for ${key}: /openapi.json has no such operation`);
    for (const [name, value] of Object.entries(example.parameters ?? {})) {
      const parameter = (operation.parameters ?? []).find((p: any) => p.name === name);
      if (parameter === undefined) throw new Error(`example for ${key}: no parameter ${name}`);
      parameter.example = value;
    }
    if (example.body !== undefined) {
      const media = operation.requestBody?.content?.['application/json'];
      if (media === undefined) throw new Error(`example for ${key}: no JSON request body`);
      media.example = example.body;
    }
  }
  return copy;
}

/* eslint-enable @typescript-eslint/no-explicit-any */
