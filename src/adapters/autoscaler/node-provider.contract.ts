/**
 * The NodeProvider contract (app/ports/node-provider.ts), run by every provider's tests: a count is
 * absolute, a repeated request leaves the group as one does, and the named nodes are the ones that
 * leave. The `kubernetes` provider runs the same sequence on a real API server
 * (test/kubernetes/autoscaler.test.ts).
 */
import { beforeEach, expect, it } from 'vitest';
import type { NodeProvider } from '../../app/ports/node-provider.js';

/** A provider under test and a way to see its group. */
export interface ProviderUnderTest {
  readonly provider: NodeProvider;
  /** The nodes of `template`'s group now, sorted. */
  nodes(template: string): Promise<string[]>;
}

/** Declares the contract's cases. @param make a fresh provider (empty groups) for each case; template `t1` exists */
export function describeNodeProvider(make: () => Promise<ProviderUnderTest>): void {
  let under: ProviderUnderTest;
  beforeEach(async () => {
    under = await make();
  });
  const scale = (desiredCount: number, removeNodes: string[] = [], decisionId = 'd1') =>
    under.provider.scale({ decisionId, template: 't1', desiredCount, removeNodes });

  it('sets the group to the count asked for, not by the difference', async () => {
    expect(await scale(2)).toMatchObject({ ok: true, changed: true });
    expect(await under.nodes('t1')).toHaveLength(2);
    expect(await scale(3, [], 'd2')).toMatchObject({ ok: true, changed: true });
    expect(await under.nodes('t1')).toHaveLength(3);
  });

  it('leaves the group as it is when the same request comes again (a restart)', async () => {
    await scale(2);
    const before = await under.nodes('t1');
    const again = await scale(2);
    expect(again.ok).toBe(true);
    expect(await under.nodes('t1')).toEqual(before);
  });

  it('removes the named nodes, not others', async () => {
    await scale(3);
    const [first, second, third] = await under.nodes('t1');
    expect(await scale(2, [second!], 'd2')).toMatchObject({ ok: true, changed: true });
    expect(await under.nodes('t1')).toEqual([first, third]);
    // The removal asked again: the count is met, nothing else goes.
    expect((await scale(2, [], 'd2')).ok).toBe(true);
    expect(await under.nodes('t1')).toEqual([first, third]);
  });
}
