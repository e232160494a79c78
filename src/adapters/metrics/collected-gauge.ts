/**
 * A prom-client gauge whose series are recomputed at every scrape: its collect callback clears the
 * old series and sets the current ones, so series of things that are gone (a finished job, a
 * removed tenant) disappear.
 */
import { Gauge, type Registry } from 'prom-client';

/** Sets one series: its labels (all of `labelNames`) and value. */
export type SetSeries<L extends string> = (labels: Record<L, string | number>, value: number) => void;

/** Definition of one collected gauge. */
export interface CollectedGaugeSpec<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  /** Called at each scrape; calls `set` once per series. Must not throw. */
  readonly fill: (set: SetSeries<L>) => void;
}

/** Registers a collected gauge on `registry`. */
export function collectedGauge<L extends string>(registry: Registry, spec: CollectedGaugeSpec<L>): Gauge<L> {
  return new Gauge<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames,
    registers: [registry],
    collect(this: Gauge<L>) {
      this.reset();
      spec.fill((labels, value) => {
        if (spec.labelNames.length === 0) this.set(value);
        else this.set(labels as Partial<Record<L, string | number>>, value);
      });
    },
  });
}
