// A stand-in `nvidia-smi` for simulated GPUs and tests: given argv and a state (GPUs with models
// and MIG layouts, persisted as a JSON file), prints the real output formats of `-L`, `mig -lgi`,
// `mig -lci`, `mig -cgi … [-C]`, `mig -dci` and `mig -dgi`, changes the state like the driver
// would, and exits with a code from nvidia-smi's documented return values. Simulated GPUs run the
// real MigManager (nvidia-smi-mig-manager.ts) against it, through simulated-nvidia-smi-cli.ts, so
// the parsers are exercised at run time too. See docs/gpus.md, "The stand-in nvidia-smi".
//
// Output shapes are copied from the recorded outputs in test/fixtures/nvidia-smi/ (`-L`: R470+
// format; `mig`: NVIDIA MIG User Guide r580 examples). Geometry decisions (does a GI fit, where
// does a GI without an explicit placement go) are the core's: isValidLayout, validStartsFor,
// choosePlacement (src/core/mig/mig-allocator.ts).
//
// The implementation is split by concern; this module re-exports it all:
//   simulated-nvidia-smi-state.ts   state types, exit codes, new states, MIG UUIDs, state checks
//   simulated-nvidia-smi-format.ts  output of `-L`, `-lgi`, `-lci`
//   simulated-nvidia-smi-mig.ts     `-cgi [-C]`, `-dci`, `-dgi`
//   simulated-nvidia-smi-run.ts     argument parsing and dispatch (runSimulatedNvidiaSmi)
//   simulated-nvidia-smi-file.ts    the state file: read, write, locked run (runSimulatedNvidiaSmiOnFile)
export {
  SIMULATED_SMI_EXIT,
  SimulatedSmiStateError,
  checkSimulatedNvidiaSmiState,
  createSimulatedNvidiaSmiState,
  simulatedMigDeviceUuid,
  type SimulatedSmiGpuInstance,
  type SimulatedSmiState,
} from './simulated-nvidia-smi-state.js';
export { runSimulatedNvidiaSmi } from './simulated-nvidia-smi-run.js';
export {
  readSimulatedNvidiaSmiState,
  runSimulatedNvidiaSmiOnFile,
  writeSimulatedNvidiaSmiState,
} from './simulated-nvidia-smi-file.js';
