/**
 * The autoscaler's store in memory (app/ports/autoscaler-store.ts), for tests: a JSON copy of the
 * record (what a ConfigMap would keep), every save counted.
 */
import type { AutoscalerRecord, AutoscalerStore } from '../ports/autoscaler-store.js';

/** A store that keeps the record as JSON text. */
export class MemoryAutoscalerStore implements AutoscalerStore {
  /** The record as saved, JSON; null before the first save. */
  text: string | null = null;
  /** Records saved, in order. */
  readonly saves: AutoscalerRecord[] = [];

  async load(): Promise<AutoscalerRecord | null> {
    return this.text === null ? null : (JSON.parse(this.text) as AutoscalerRecord);
  }

  async save(record: AutoscalerRecord): Promise<void> {
    this.text = JSON.stringify(record);
    this.saves.push(JSON.parse(this.text) as AutoscalerRecord);
  }
}
