#!/usr/bin/env node
// A job that honours gpushare's checkpoint protocol (docs/preemption.md):
// - it keeps its progress in $GPUSHARE_CHECKPOINT_DIR/state.json (the directory survives attempts);
// - on SIGUSR1 (the preemption signal) it writes a checkpoint and exits;
// - when $GPUSHARE_RESUME=1 it continues from the checkpoint instead of starting over.
// Usage: node checkpoint-job.mjs STEPS [STEP_MS]   — sums 1..STEPS, one number per step.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const steps = Number(process.argv[2] ?? 100);
const stepMs = Number(process.argv[3] ?? 100);
const dir = process.env.GPUSHARE_CHECKPOINT_DIR ?? '.';
const file = join(dir, 'state.json');
mkdirSync(dir, { recursive: true });

let state = { step: 0, sum: 0 };
if (process.env.GPUSHARE_RESUME === '1') {
  state = JSON.parse(readFileSync(file, 'utf8'));
  console.log(`resumed at step ${state.step} (sum ${state.sum})`);
} else {
  console.log('starting from step 0');
}

function checkpoint() {
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file); // atomic: a crash never leaves half a checkpoint
}

process.on('SIGUSR1', () => {
  checkpoint();
  console.log(`checkpointed at step ${state.step}; exiting for preemption`);
  // Exit 0, as most checkpointing jobs do: gpushare knows the signal reached the job, so it
  // requeues it as preempted whatever the exit status.
  process.exit(0);
});

const timer = setInterval(() => {
  state.step += 1;
  state.sum += state.step;
  if (state.step % 10 === 0) checkpoint();
  if (state.step >= steps) {
    clearInterval(timer);
    checkpoint();
    console.log(`done: sum of 1..${steps} = ${state.sum}`);
  }
}, stepMs);
