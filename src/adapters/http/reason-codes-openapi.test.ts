/**
 * The OpenAPI document of the real routes (buildServer over a control plane on in-memory adapters,
 * called with `inject`): every `reasonCode` it describes is an enum of the core's wait codes.
 */
import { describe, expect, it } from 'vitest';
import { planeKit } from '../../app/testing/plane-kit.js';
import { JOB_REASON_CODE_VALUES } from '../../core/index.js';
import { buildServer } from './build-server.js';
import { kitServices } from './testing/kit-services.js';

/** Each schema named `reasonCode` in `node`, with its path in the document. */
function reasonCodeSchemas(node: unknown, path: string, found: [string, unknown][]): [string, unknown][] {
  if (Array.isArray(node)) node.forEach((item, i) => reasonCodeSchemas(item, `${path}/${i}`, found));
  else if (node !== null && typeof node === 'object')
    for (const [key, value] of Object.entries(node)) {
      if (key === 'reasonCode' && path.endsWith('/properties')) found.push([`${path}/reasonCode`, value]);
      reasonCodeSchemas(value, `${path}/${key}`, found);
    }
  return found;
}

/** The values a schema allows besides null: its enum, or the enums of its anyOf / oneOf branches. */
function enumOf(schema: unknown): unknown[] | null {
  const s = schema as { enum?: unknown[]; anyOf?: unknown[]; oneOf?: unknown[] };
  if (Array.isArray(s.enum)) return s.enum.filter((v) => v !== null);
  const branches = s.anyOf ?? s.oneOf;
  if (!Array.isArray(branches)) return null;
  const values = branches.flatMap((b) => ((b as { type?: string }).type === 'null' ? [] : (enumOf(b) ?? [NaN])));
  return values.some((v) => Number.isNaN(v)) ? null : values;
}

describe('reasonCode in /openapi.json', () => {
  it('is an enum of the job reason codes (wait and event codes) wherever it appears', async () => {
    const kit = await planeKit('1xA10');
    const app = await buildServer({ ...kitServices(kit) });
    try {
      const spec: unknown = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const schemas = reasonCodeSchemas(spec, '', []);
      // The job of a listing, of a job's detail, of a submit's answer, of a cancel's answer.
      expect(schemas.length).toBeGreaterThanOrEqual(4);
      for (const [path, schema] of schemas) expect([path, enumOf(schema)]).toEqual([path, [...JOB_REASON_CODE_VALUES]]);
    } finally {
      await app.close();
      await kit.plane.stop();
    }
  });
});
