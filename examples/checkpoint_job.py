#!/usr/bin/env python3
"""A job that honours gpushare's checkpoint protocol (docs/preemption.md).

- Progress lives in $GPUSHARE_CHECKPOINT_DIR/state.json (the directory survives attempts).
- On SIGUSR1 (the preemption signal) it writes a checkpoint and exits.
- When $GPUSHARE_RESUME=1 it continues from the checkpoint instead of starting over.

Usage: python3 checkpoint_job.py STEPS [STEP_SECONDS]  -- sums 1..STEPS, one number per step.
"""
import json
import os
import signal
import sys
import time

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
step_seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
directory = os.environ.get("GPUSHARE_CHECKPOINT_DIR", ".")
path = os.path.join(directory, "state.json")
os.makedirs(directory, exist_ok=True)

state = {"step": 0, "sum": 0}
if os.environ.get("GPUSHARE_RESUME") == "1":
    with open(path) as f:
        state = json.load(f)
    print(f"resumed at step {state['step']} (sum {state['sum']})", flush=True)
else:
    print("starting from step 0", flush=True)


def checkpoint():
    with open(path + ".tmp", "w") as f:
        json.dump(state, f)
    os.replace(path + ".tmp", path)  # atomic: a crash never leaves half a checkpoint


def on_preempt(_signum, _frame):
    checkpoint()
    print(f"checkpointed at step {state['step']}; exiting for preemption", flush=True)
    # Exit 0, as most checkpointing jobs do: gpushare knows the signal reached the job, so it
    # requeues it as preempted whatever the exit status.
    sys.exit(0)


signal.signal(signal.SIGUSR1, on_preempt)

while state["step"] < steps:
    time.sleep(step_seconds)
    state["step"] += 1
    state["sum"] += state["step"]
    if state["step"] % 10 == 0:
        checkpoint()
checkpoint()
print(f"done: sum of 1..{steps} = {state['sum']}", flush=True)
