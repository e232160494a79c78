// Port: MPS (Multi-Process Service) control daemons, one per device that runs `mps` jobs. Adapter:
// src/adapters/mps/mps-daemon-manager.ts (nvidia-cuda-mps-control). See docs/mps.md.

/** A Unix user and group an MPS daemon runs as. */
export interface MpsUser {
  uid: number;
  gid: number;
}

/** A device that gets its own MPS control daemon. */
export interface MpsDevice {
  /**
   * The device's identity and `CUDA_VISIBLE_DEVICES` value for the daemon: a GPU UUID
   * (`GPU-…`) or a MIG device UUID (`MIG-…`, or the legacy `MIG-GPU-<uuid>/<gi>/<ci>`).
   */
  key: string;
  /**
   * The Unix user the daemon runs as (a tenant's uid, docs/mps.md "One tenant per GPU"); absent: the
   * server's own user. An MPS daemon serves one user at a time, so the scheduler gives an MPS GPU
   * one tenant's jobs at a time (docs/decisions/0014).
   */
  user?: MpsUser;
}

/** Where a daemon's clients and logs meet. */
export interface MpsDaemonDirectories {
  /** `CUDA_MPS_PIPE_DIRECTORY` of the daemon; every client of the device must get the same value. */
  pipeDirectory: string;
  /** `CUDA_MPS_LOG_DIRECTORY` of the daemon (`control.log`, `server.log`). */
  logDirectory: string;
}

/** Starts and stops MPS control daemons. */
export interface MpsControl {
  /**
   * Makes sure a daemon runs for the device as `device.user`, starting one if none does (a running
   * daemon of the same user, also one left by an earlier server process, is reused, never started
   * twice), and returns its directories. A daemon of another user is told to quit and started
   * again as `device.user`: call it with a new user only when the device has no MPS client left
   * (the scheduler's one-tenant rule keeps it so). Rejects when MPS is unavailable on this host or
   * the daemon does not start.
   */
  ensureDaemon(device: MpsDevice): Promise<MpsDaemonDirectories>;
  /**
   * Stops the device's daemon (`quit`), if one runs; resolves once it is asked to quit. Rejects when it cannot be
   * stopped.
   */
  stopDaemon(key: string): Promise<void>;
  /** Keys of the daemons this control started or adopted and has not stopped, in start order. */
  running(): string[];
}
