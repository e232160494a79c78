/**
 * The core's public surface (src/core/index.ts) names each export: no `export *`, so a name added
 * to a core module is not public until it is listed (knip fails a listed name nothing uses).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const index = readFileSync(new URL('../../src/core/index.ts', import.meta.url), 'utf8');

describe('src/core/index.ts', () => {
  it('exports each name by name, from modules of the core only', () => {
    expect(index.match(/^export \*/gm)).toBeNull();
    const sources = [...index.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(20);
    expect(sources.filter((s) => !s.startsWith('./'))).toEqual([]);
  });
});
