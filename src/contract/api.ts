/**
 * The HTTP API's data shapes (zod), shared by the server's routes, the typed HTTP client, the CLI
 * and the dashboard. Routes live under `/api/v1`; every call needs `Authorization: Bearer <token>`.
 * Errors are `{ error: { code, message, details } }` with a 4xx/5xx status.
 */
import { z } from 'zod';
import {
  ENFORCEMENT_LEVELS,
  ISOLATION_LEVELS,
  JOB_STATES,
  PRIORITY_CLASS_NAMES,
  SHARING_MODES,
  JOB_REASON_CODE_VALUES,
} from '../core/index.js';
import { decimalRangePattern } from '../lib/decimal-range-pattern.js';
import { documented, printableNameKeywords, withoutControlCharactersPattern } from './openapi-notes.js';
import { isoTimeWithZone } from './iso-time.js';
import { CONTROL_CHARACTER, CONTROL_CHARACTERS_IN_WORDS, codePointName } from '../lib/control-characters.js';

/**
 * `params` of a zod refinement between fields, which no JSON Schema of /openapi.json can state: the
 * HTTP layer answers its issue with 422 rather than 400, as it does the services' rules (invalidField).
 */
export const UNPROCESSABLE = { httpStatus: 422 } as const;

/** Pattern of the environment variable names the API accepts (POSIX portable names). */
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Environment variable names the API accepts (POSIX portable names). */
const ENV_NAME = z
  .string()
  .regex(ENV_NAME_PATTERN, 'environment variable names are letters, digits and "_", not starting with a digit');
/** A string without NUL bytes (which no argv, path or environment value can hold). */
const NO_NUL = documented(z.string(), { pattern: '^[^\\u0000]*$' }).refine(
  (v) => !v.includes('\0'),
  'must not contain NUL bytes',
);

/**
 * A name or label people read in listings (a job's name, a token's label): 1 to `maxLength`
 * characters, not only white space, and none of the control characters of
 * src/lib/control-characters.ts (C0, DEL, C1, bidirectional and line-separator controls), which
 * could forge rows or hide text on an admin's terminal. The value is kept as given (not trimmed).
 * Messages say what is allowed and what was found, e.g. `must be 1-200 printable characters, not
 * only spaces, without control characters (...): got U+001B at character 4`.
 */
export function printableName(maxLength: number): z.ZodEffects<z.ZodString, string, string> {
  const allowed =
    `must be 1-${maxLength} printable characters, not only spaces, without ` + `${CONTROL_CHARACTERS_IN_WORDS}`;
  return documented(
    z.string({ invalid_type_error: `${allowed}: got no text` }),
    printableNameKeywords(maxLength),
  ).superRefine((value, ctx) => {
    const control = CONTROL_CHARACTER.exec(value);
    if (control !== null) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message:
          `${allowed}: got ${codePointName(control[0])} at character ` +
          `${[...value.slice(0, control.index)].length + 1}`,
      });
    } else if (value.trim() === '') {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `${allowed}: got ${value === '' ? 'an empty text' : 'only white space'}`,
      });
    } else if ([...value].length > maxLength) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${allowed}: got ${[...value].length} characters` });
    }
  });
}

/**
 * A text of `min` to `max` characters counted as code points, as JSON Schema's minLength and
 * maxLength count them (zod's `.min`/`.max` count UTF-16 units, so that 100 emoji would be 200);
 * `message` is the error otherwise.
 */
export function textOfLength(min: number, max: number, message: string) {
  return documented(z.string(), { minLength: min, maxLength: max }).refine((text) => {
    const length = [...text].length;
    return length >= min && length <= max;
  }, message);
}

/**
 * The most bytes one argument or one `NAME=value` environment entry may have, its terminating NUL
 * included: Linux's MAX_ARG_STRLEN (32 pages of 4 KiB). A longer one cannot be passed to a program
 * (execve fails with E2BIG), so submit refuses it.
 */
export const MAX_ARG_BYTES = 131_072;

/** UTF-8 length of `text` in bytes. */
function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * A path parameter that is a whole number from `min` to `max`, written in decimal: digits only, no
 * sign, spaces, `0x`, exponent or leading zero (`/gpus//cordon`, `/gpus/%20/cordon`, `/gpus/0x1/cordon`,
 * `/gpus/01/cordon` are 400, never GPU 0 or 1). Parses to a number.
 */
export function decimalParameter(min: number, max: number, what: string) {
  const allowed = `must be a decimal integer ${min}-${max} (digits only, no sign, spaces or leading zeros)`;
  // A string check, then the number: the OpenAPI document shows a string of digits whose pattern
  // holds exactly min..max (a pipe would show a string and a number at once, which no value is).
  return z
    .string()
    .regex(new RegExp(decimalRangePattern(min, max)), `${allowed}; ${what}`)
    .refine((digits) => Number(digits) >= min && Number(digits) <= max, `${allowed}; ${what}`)
    .transform(Number)
    .describe(what);
}

/**
 * Body of the POST routes that take none (drain, cordon, uncordon, cancel): no body, or the empty
 * JSON object `{}`. An object with fields is a 400 that says so, rather than being ignored.
 */
export const NoBodySchema = documented(z.unknown(), { type: 'object', maxProperties: 0 })
  .superRefine((body, ctx) => {
    // No body reaches a schema as null (Fastify); a JSON null never gets this far (json-body.ts).
    if (body === undefined || body === null) return;
    const isObject = typeof body === 'object' && !Array.isArray(body);
    if (isObject && Object.keys(body).length === 0) return;
    const got = isObject
      ? `the field(s) ${Object.keys(body).join(', ')}`
      : Array.isArray(body)
        ? 'an array'
        : `a ${typeof body}`;
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `this call takes no body fields: send no body or {}, got ${got}`,
    });
  })
  .describe('none: send no body, or {}');

/** Tenant names: lower-case letters, digits and "-". */
export const TENANT_NAME = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,62}$/,
    'tenant names are 1-63 characters: lower-case letters, digits and "-", starting with a letter or digit',
  );

/** The GPU part of a submit. */
export const GpuRequestSchema = z
  .object({
    gpuCount: z.number().int().min(1).max(64).default(1).describe('number of distinct GPUs'),
    gpuMilli: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe(
        'compute share of each GPU in milli-GPU (1000 = whole GPU); default 1000, or, when only ' +
          "gpuMemoryMiB is given, that memory's share of the smallest GPU that holds it",
      ),
    gpuMemoryMiB: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('device memory per GPU in MiB; null = in proportion to gpuMilli of the GPU the job lands on'),
    mode: z.enum(SHARING_MODES).default('auto').describe('sharing mode: auto, exclusive, mig, mps or timeslice'),
    isolation: z
      .enum(ISOLATION_LEVELS)
      .default('standard')
      .describe('for mode auto: strict (MIG instance, else whole GPUs), standard (MPS), none (time-slicing)'),
  })
  .strict();

/** A QoS target or observed value in seconds: positive and finite. */
const QOS_SECONDS = z
  .number({ invalid_type_error: 'must be a number of seconds' })
  .positive('must be a positive number of seconds')
  .finite('must be a finite number of seconds')
  .max(86_400, 'must be at most 86400 seconds');

/** QoS targets of a job (docs/qos.md): a report above a target misses it. */
export const QosTargetsSchema = z
  .object({
    stepSeconds: QOS_SECONDS.optional().describe('target seconds per training step'),
    latencySeconds: QOS_SECONDS.optional().describe('target seconds per request'),
  })
  .strict();

/** Most device memory a job may report using on one GPU, MiB (1 TiB). */
export const MAX_REPORTED_GPU_MEMORY_MIB = 1_048_576;

/**
 * `POST /api/v1/jobs/:id/qos-reports` body: at least one observed value. Progress values
 * (`stepSeconds`, `latencySeconds`) need the matching QoS target; usage values (`gpuMemoryUsedMiB`,
 * `gpuUtilizationPct`) any running job may report (docs/server.md, "Measured peaks").
 */
export const QosReportSchema = documented(
  z
    .object({
      stepSeconds: QOS_SECONDS.optional().describe('observed seconds per training step'),
      latencySeconds: QOS_SECONDS.optional().describe('observed seconds per request'),
      gpuMemoryUsedMiB: z
        .number({ invalid_type_error: 'must be a whole number of MiB' })
        .int('must be a whole number of MiB')
        .min(0, 'must be at least 0 MiB')
        .max(MAX_REPORTED_GPU_MEMORY_MIB, `must be at most ${MAX_REPORTED_GPU_MEMORY_MIB} MiB`)
        .optional()
        .describe(
          'device memory the job uses now on the one of its GPUs where it uses most, MiB (kept as its peak when ' +
            'higher)',
        ),
      gpuUtilizationPct: z
        .number({ invalid_type_error: 'must be a percentage' })
        .min(0, 'must be a percentage from 0 to 100')
        .max(100, 'must be a percentage from 0 to 100')
        .optional()
        .describe('GPU utilization the job sees now, percent 0-100 (kept as its peak when higher)'),
    })
    .strict(),
  { minProperties: 1 },
).refine(
  (r) =>
    r.stepSeconds !== undefined ||
    r.latencySeconds !== undefined ||
    r.gpuMemoryUsedMiB !== undefined ||
    r.gpuUtilizationPct !== undefined,
  { message: 'a report needs stepSeconds, latencySeconds, gpuMemoryUsedMiB or gpuUtilizationPct' },
);
/** A progress report. */
export type QosReportBody = z.infer<typeof QosReportSchema>;

/** The QoS state of one target of a running job. */
export const QosStatusSchema = z.object({
  kind: z.enum(['step', 'latency']),
  targetSeconds: z.number(),
  lastObservedSeconds: z.number().nullable().describe('latest reported value; null before the first report'),
  lastReportAt: z.string().nullable(),
  reports: z.number().int(),
  violating: z.boolean().describe('missed for at least qosViolationSeconds'),
  missingSince: z.string().nullable().describe('first miss of the current run of misses; null while met'),
  violations: z.number().int().describe('violations raised in this attempt'),
});
/** The QoS state of one target. */
export type QosStatusView = z.infer<typeof QosStatusSchema>;

/** A job's peak GPU usage over all its attempts (docs/server.md, "Measured peaks"). */
export const UsagePeakSchema = z.object({
  gpuMemoryMiB: z
    .number()
    .int()
    .nullable()
    .describe('most device memory the job used on any one of its GPUs, MiB; null: never measured'),
  gpuUtilizationPct: z
    .number()
    .nullable()
    .describe('highest GPU utilization attributable to the job, percent; null: never measured'),
  updatedAt: z.string().describe('when a value last rose'),
});
/** A job's peak GPU usage. */
export type UsagePeakView = z.infer<typeof UsagePeakSchema>;

/** `POST /api/v1/jobs/:id/qos-reports` response: the job's QoS state and usage peak after the report. */
export const QosReportResultSchema = z.object({
  jobId: z.number().int(),
  status: z.array(QosStatusSchema),
  // Optional, like every field added after the first release of an answer: a newer client reads an older server.
  usagePeak: UsagePeakSchema.nullable()
    .optional()
    .describe("the job's usage peak after the report; null: none measured yet"),
  peakRaised: z.boolean().optional().describe('whether this report raised the usage peak'),
});
/** `POST /api/v1/jobs/:id/qos-reports` response. */
export type QosReportResult = z.infer<typeof QosReportResultSchema>;

/** `POST /api/v1/jobs` body. */
export const SubmitJobSchema = z
  .object({
    command: z
      .array(
        NO_NUL.refine(
          (arg) => utf8Bytes(arg) < MAX_ARG_BYTES,
          (arg) => ({
            message:
              `an argument may have at most ${MAX_ARG_BYTES - 1} bytes (the kernel's limit for one ` +
              `argument, MAX_ARG_STRLEN), got ${utf8Bytes(arg)}`,
          }),
        ),
      )
      .min(1, 'command needs at least the program to run')
      .max(4096)
      .describe('argv; command[0] must be an executable on PATH or a path'),
    workingDirectory: NO_NUL.pipe(z.string().startsWith('/', 'workingDirectory must be an absolute path'))
      .optional()
      .describe("absolute directory the job runs in; default: a private directory of the job's own"),
    workingDirectoryFallback: z
      .enum(['none', 'private'])
      .optional()
      .describe(
        "when workingDirectory cannot be the job's (on a sandboxed server: not the tenant uid's to write): " +
          'none (default) refuses the submit; private runs the job in a private directory of its own and ' +
          'records why (reason code workdir-not-writable)',
      ),
    environment: documented(z.record(ENV_NAME, NO_NUL), {
      // JSON Schema's propertyNames: OpenAPI 3.0 lists no keyword for the names of a map's keys, and
      // @fastify/swagger turns patternProperties into additionalProperties, dropping the names' pattern.
      propertyNames: { pattern: ENV_NAME_PATTERN.source },
    })
      .superRefine((env, ctx) => {
        for (const [name, value] of Object.entries(env)) {
          const bytes = utf8Bytes(`${name}=${value}`);
          if (bytes >= MAX_ARG_BYTES)
            ctx.addIssue({
              code: z.ZodIssueCode.custom,
              path: [name],
              message:
                `NAME=value may have at most ${MAX_ARG_BYTES - 1} bytes (the kernel's limit for one ` +
                `environment entry, MAX_ARG_STRLEN), got ${bytes}`,
            });
        }
      })
      .default({})
      .describe(
        'extra environment variables; names matching [A-Za-z_][A-Za-z0-9_]*; CUDA_VISIBLE_DEVICES, ' +
          'CUDA_MPS_* and GPUSHARE_* are set by gpushare and cannot be given',
      ),
    tenant: TENANT_NAME.optional().describe(
      "owner; tenant tokens may omit it (their tenant); an admin's job without it goes to tenant default",
    ),
    name: printableName(200).optional().describe('display name; default: the program name'),
    priority: z
      .union([z.number().int().min(0).max(1_000_000), z.enum(PRIORITY_CLASS_NAMES)], {
        errorMap: () => ({ message: 'priority must be an integer 0-1000000 or one of low, normal, high, critical' }),
      })
      .default('normal')
      .describe('a number (higher is more important) or a class: low, normal, high, critical'),
    preemptible: z
      .boolean()
      .optional()
      .describe(
        'may be preempted (checkpoint protocol) for a more important job; default: true below priority high (900)',
      ),
    timeLimitSeconds: z
      .number()
      .int()
      .min(1)
      .max(31_536_000, 'timeLimitSeconds must be at most 31536000 (one year)')
      .nullable()
      .default(null)
      .describe('wall-clock limit of one attempt, seconds'),
    retries: z.number().int().min(0).max(100).default(0).describe('how often a failed attempt is retried'),
    cpuMilli: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('host CPU in milli-cores (enforced with cgroups where available); 0 = none reserved'),
    hostMemoryMiB: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('host memory in MiB (enforced with cgroups where available); 0 = none reserved'),
    gpu: GpuRequestSchema.default({}),
    qos: QosTargetsSchema.optional().describe('QoS targets the job reports against (docs/qos.md)'),
  })
  .strict();
/** Parsed submit body (defaults applied). */
export type SubmitJob = z.infer<typeof SubmitJobSchema>;
/** Submit body as a client may send it (defaults optional). */
export type SubmitJobInput = z.input<typeof SubmitJobSchema>;

/**
 * What holds a GPU share to its size, per resource (docs/sharing-modes.md "What is enforced"):
 * `hardware` (MIG instance), `exclusive` (the whole GPU is the job's), `driver-per-process` (MPS
 * with a running daemon: the limit applies to each CUDA process of the job, not to the job as a
 * whole), `time-slice` (compute only: the server freezes the GPU's other jobs in turn),
 * `not-enforced` (accounted by the scheduler only).
 */
export const ShareEnforcementSchema = z.object({
  gpuMemory: z.enum(ENFORCEMENT_LEVELS).describe('what caps the GPU memory the job can allocate'),
  compute: z.enum(ENFORCEMENT_LEVELS).describe('what holds the job to its compute share'),
});
/** What enforces a share's memory and compute. */
export type ShareEnforcementView = z.infer<typeof ShareEnforcementSchema>;

/** One GPU of a placement, as the API shows it. */
export const PlacedGpuSchema = z.object({
  index: z.number().int(),
  uuid: z.string(),
  gpuMilli: z.number().int(),
  accountedGpuMilli: z.number().int(),
  gpuMemoryMiB: z.number().int(),
  migProfile: z.string().nullable(),
  migDeviceUuid: z.string().nullable(),
});

/** A job as the API shows it. */
export const JobSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  tenant: z.string(),
  state: z.enum(JOB_STATES),
  reason: z.string().nullable(),
  /**
   * Code of `reason`: why a queued job waits (`gpu-capacity`, `quota`, `backfill`, …), or what
   * happened to the job (`placed`, `attempt-started`, `exited`, `preempted`, …): core/model/status.ts,
   * docs/reasons.md; null when it has no reason.
   */
  reasonCode: z
    .enum(JOB_REASON_CODE_VALUES)
    .nullable()
    .describe('why a queued job waits, or what happened to the job (docs/reasons.md); null when it has no reason'),
  priority: z.number().int(),
  priorityClass: z.string(),
  preemptible: z.boolean(),
  command: z.array(z.string()),
  workingDirectory: z.string().nullable().describe("null: the job's private working directory"),
  timeLimitSeconds: z.number().int().nullable(),
  retries: z.number().int(),
  attempt: z.number().int(),
  cpuMilli: z.number().int(),
  hostMemoryMiB: z.number().int(),
  gpu: z.object({
    gpuCount: z.number().int(),
    gpuMilli: z.number().int(),
    gpuMemoryMiB: z.number().int().nullable(),
    mode: z.enum(SHARING_MODES),
    isolation: z.enum(ISOLATION_LEVELS),
  }),
  placement: z
    .object({
      mode: z.enum(SHARING_MODES),
      enforcement: ShareEnforcementSchema.describe('what enforces the share on each of its GPUs (memory and compute)'),
      simulated: z.boolean(),
      gpus: z.array(PlacedGpuSchema),
    })
    .nullable(),
  submittedAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  pid: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe(
      "while the job runs: its command's pid on the host, as ps shows it (in the sandbox the process " +
        'bubblewrap starts the command in, not bubblewrap or the supervisor); null otherwise or when not ' +
        'known',
    ),
  qos: z
    .object({
      targets: QosTargetsSchema,
      status: z.array(QosStatusSchema).describe('one entry per target while the job runs; empty otherwise'),
    })
    .nullable()
    .optional()
    .describe('QoS targets and state; null when the job declares none'),
});
/** A job as the API shows it. */
export type JobView = z.infer<typeof JobSchema>;

/** One transition of a job. */
export const JobEventSchema = z.object({
  at: z.string(),
  from: z.enum(JOB_STATES).nullable(),
  to: z.enum(JOB_STATES),
  reason: z.string().nullable(),
  /** Code of `reason` (docs/reasons.md); null when the transition has none (the submit). */
  reasonCode: z
    .enum(JOB_REASON_CODE_VALUES)
    .nullable()
    .describe('what happened to the job (docs/reasons.md); null when the transition has no reason'),
});
/** One attempt of a job. */
export const AttemptSchema = z.object({
  attempt: z.number().int(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  endReason: z.string().nullable(),
});
/** The host limits one job runs under on this host (docs/processes.md "Host limits"); null: not enforced. */
export const JobHostLimitsSchema = z.object({
  pidsMax: z.number().int().nullable().describe('process limit (pids.max); null: none on this host'),
  hostMemoryMiB: z.number().int().nullable().describe('memory cgroup limit, MiB; null: none'),
  hostMemorySource: z
    .enum(['request', 'tenant-default', 'server-default', 'none'])
    .describe("where hostMemoryMiB comes from: the job's request, its tenant's default, the server's default"),
  cpuWeight: z.number().int().nullable().describe("the job cgroup's CPU weight (cpu.weight; v1 cpu.shares = ×10.24)"),
  cpuQuotaMilli: z.number().int().nullable().describe('CPU quota (cpuMilli as a CFS quota), milli-cores; null: none'),
  events: z
    .object({
      pidsMaxHits: z.number().int().describe('forks refused at the process limit'),
      oomKills: z.number().int().describe('processes the OOM killer ended at the memory limit'),
      cpuThrottledPeriods: z.number().int().describe('CFS periods the job was held at its CPU quota'),
    })
    .nullable()
    .describe('what the kernel counted against the limits so far, while the job runs; null otherwise'),
});

/** `GET /api/v1/jobs/:id`: the job with its history. */
export const JobDetailSchema = JobSchema.extend({
  events: z.array(JobEventSchema),
  attempts: z.array(AttemptSchema),
  environment: z.record(z.string()),
  usagePeak: UsagePeakSchema.nullable()
    .optional()
    .describe("peak measured GPU memory and utilization over all the job's attempts; null: none measured"),
  hostLimits: JobHostLimitsSchema.optional().describe('the host limits the job runs under on this host'),
  workingDirectoryReason: z
    .object({
      code: z.literal('workdir-not-writable'),
      requestedDirectory: z.string(),
      reason: z.string(),
    })
    .nullable()
    .optional()
    .describe(
      'why the job runs in a private working directory although it was submitted from a folder ' +
        '(workingDirectoryFallback private); null: it runs where it was asked to, or was asked for a private one',
    ),
});
/** A job with its history. */
export type JobDetailView = z.infer<typeof JobDetailSchema>;

/** A GPU as the API shows it (like one block of nvidia-smi). */
export const GpuSchema = z.object({
  index: z.number().int(),
  uuid: z.string(),
  name: z.string(),
  model: z.string(),
  simulated: z.boolean(),
  migEnabled: z.boolean(),
  healthy: z.boolean(),
  healthReason: z.string().nullable(),
  cordoned: z.boolean(),
  schedulable: z.boolean(),
  mode: z.enum(SHARING_MODES).nullable(),
  enforcement: ShareEnforcementSchema.nullable().describe(
    'what enforces the shares of the jobs on it, the weakest level over its jobs per resource; null when idle',
  ),
  gpuMemoryMiB: z.number().int(),
  allocatedGpuMilli: z.number().int(),
  freeGpuMilli: z.number().int(),
  allocatedGpuMemoryMiB: z.number().int(),
  freeGpuMemoryMiB: z.number().int(),
  utilizationGpuPct: z.number().nullable(),
  memoryUsedMiB: z.number().nullable(),
  measuredSource: z
    .enum(['nvidia-smi', 'simulated'])
    .nullable()
    .optional()
    .describe(
      'where utilizationGpuPct and memoryUsedMiB come from: nvidia-smi, or simulated (derived from the ' +
        'allocations; see docs/metrics.md); null when neither is known',
    ),
  jobs: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      tenant: z.string(),
      state: z.enum(JOB_STATES),
      gpuMilli: z.number().int(),
      gpuMemoryMiB: z.number().int(),
      migProfile: z.string().nullable(),
      migStart: z
        .number()
        .int()
        .nullable()
        .describe("MIG: first memory slice of the job's GPU instance; null otherwise"),
      migSlices: z
        .number()
        .int()
        .nullable()
        .describe("MIG: memory slices the job's GPU instance spans; null otherwise"),
    }),
  ),
  migMemorySlices: z
    .number()
    .int()
    .nullable()
    .describe(
      'MIG GPUs: memory slices of the whole GPU (8 on A100/H100, 4 on A30), the positions GPU instances ' +
        'start at; null otherwise',
    ),
  migIdleInstances: z
    .array(z.object({ profileName: z.string(), start: z.number().int(), size: z.number().int() }))
    .describe('MIG GPUs: GPU instances that exist but hold no job (start and size in memory slices); empty otherwise'),
});
/** A GPU as the API shows it. */
export type GpuView = z.infer<typeof GpuSchema>;

/** One sample of the usage history (`GET /api/v1/usage/history`). */
export const UsageSampleSchema = z.object({
  at: z.string().describe('when the sample was taken (ISO-8601)'),
  allocationRatio: z
    .number()
    .describe('Σ allocated milli-GPU of the schedulable GPUs / (1000 × schedulable GPUs), 0..1'),
  meanUtilizationRatio: z
    .number()
    .nullable()
    .describe('mean measured utilization (0..1) over the GPUs that report one; null when none does'),
  gpus: z.array(z.object({ index: z.number().int(), allocatedGpuMilli: z.number().int() })),
});
/** `GET /api/v1/usage/history`: samples oldest first. */
export const UsageHistorySchema = z.object({
  intervalSeconds: z.number(),
  capacity: z.number().int(),
  samples: z.array(UsageSampleSchema),
});
/** A usage sample as the API shows it. */
export type UsageSampleView = z.infer<typeof UsageSampleSchema>;

/** `GET /api/v1/jobs/:id/logs` query: read from byte `offset` of the chosen stream. */
export const LogsQuerySchema = z
  .object({
    stream: z.enum(['stdout', 'stderr']).default('stdout'),
    attempt: z.coerce.number().int().min(1).optional().describe('attempt number; default: the latest'),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();
/** Logs response: the text from `offset`, the next offset, and whether the job has ended. */
export const LogsSchema = z.object({
  attempt: z.number().int(),
  text: z.string(),
  nextOffset: z.number().int(),
  ended: z.boolean(),
});

/** `POST /api/v1/tenants` body. */
export const CreateTenantSchema = z.object({ name: TENANT_NAME }).strict();
/** Longest lifetime a token may be given: 10 years of 365 days, in seconds. */
export const MAX_TOKEN_LIFETIME_SECONDS = 10 * 365 * 86_400;
/** A token's role (docs/security.md, "Roles"). */
export const TokenRoleSchema = z.enum(['admin', 'tenant-admin', 'member', 'viewer']);
/** `POST /api/v1/tokens` body: role `member` unless given; no expiry unless `expiresInSeconds` or `expiresAt`. */
export const CreateTokenSchema = documented(
  z
    .object({
      tenant: TENANT_NAME.optional().describe(
        'the tenant the token acts for; leave out for an admin token (and with a tenant-admin token: its own tenant)',
      ),
      role: TokenRoleSchema.default('member').describe('default member (least privilege)'),
      label: printableName(200)
        .optional()
        .transform((label) => label ?? '')
        .describe('a note to tell tokens apart; absent: none'),
      expiresInSeconds: z
        .number()
        .int()
        .min(1)
        .max(MAX_TOKEN_LIFETIME_SECONDS)
        .optional()
        .describe('lifetime from now, seconds (1 s to 10 years)'),
      expiresAt: isoTimeWithZone('expiresAt: must be an ISO 8601 time with a zone, e.g. 2030-01-31T12:00:00Z')
        .optional()
        .describe('ISO 8601 time in the future (up to 10 years ahead), e.g. 2030-01-31T12:00:00Z'),
    })
    .strict(),
  // expiresInSeconds or expiresAt, not both (the token service refuses both with 422 too)
  { not: { required: ['expiresInSeconds', 'expiresAt'] } },
);
/** A token as the API shows it: never its secret or digest. Times are ISO 8601. */
export const TokenSchema = z.object({
  id: z.number().int(),
  tenant: z.string().nullable().describe('null for an admin token'),
  role: TokenRoleSchema,
  label: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable().describe('null: never expires'),
  revokedAt: z.string().nullable(),
  rotatedAt: z.string().nullable().describe('when its secret was last replaced'),
  state: z.enum(['active', 'expired', 'revoked']),
  self: z.boolean().describe('whether this is the token making the request'),
});
/** A new or rotated token: the view and its secret, shown only this once. */
export const NewTokenSchema = TokenSchema.extend({ token: z.string().describe('the secret, shown only this once') });
/** A token as the API shows it. */
export type TokenView = z.infer<typeof TokenSchema>;
/** A token with its new secret. */
export type NewTokenView = z.infer<typeof NewTokenSchema>;
/** A tenant with its quota (GPU-equivalents; see docs/fair-share.md). */
export const TenantSchema = z.object({
  name: z.string(),
  createdAt: z.string(),
  guaranteedGpuEquivalents: z.number(),
  limitGpuEquivalents: z.number().nullable(),
  unixUid: z
    .number()
    .int()
    .nullable()
    .describe('the uid its jobs run under in the sandbox (docs/security.md); null when jobs are not sandboxed'),
  maxPriorityClass: z
    .enum(PRIORITY_CLASS_NAMES)
    .describe(
      "highest priority class its tokens may submit at (a number above the class's value is refused; " +
        "critical allows any); admins' jobs are not capped",
    ),
  requestsPerSecond: z
    .number()
    .nullable()
    .describe("requests per second each of its tokens may make; null = the server's default"),
  requestBurst: z
    .number()
    .int()
    .nullable()
    .describe("requests each of its tokens may make at once above that rate; null = the server's default"),
  eventStreamsPerToken: z
    .number()
    .int()
    .nullable()
    .describe("event streams each of its tokens may hold open; null = the server's default"),
});
/** `PUT /api/v1/tenants/:name/limits` body: the fields to change (null = back to the server's default). */
export const SetTenantLimitsSchema = documented(
  z
    .object({
      maxPriorityClass: z
        .enum(PRIORITY_CLASS_NAMES)
        .optional()
        .describe("highest priority class the tenant's tokens may submit at: low, normal, high, critical"),
      requestsPerSecond: z
        .number()
        .gt(0)
        .max(100_000)
        .nullable()
        .optional()
        .describe("requests per second per token; null = the server's default"),
      requestBurst: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .nullable()
        .optional()
        .describe("requests per token at once above the rate; null = the server's default"),
      eventStreamsPerToken: z
        .number()
        .int()
        .min(0)
        .max(1000)
        .nullable()
        .optional()
        .describe("open event streams per token; null = the server's default"),
    })
    .strict(),
  { minProperties: 1 },
).refine((b) => Object.values(b).some((v) => v !== undefined), {
  message: 'give at least one of maxPriorityClass, requestsPerSecond, requestBurst, eventStreamsPerToken',
});
/** A limits change. */
export type SetTenantLimits = z.infer<typeof SetTenantLimitsSchema>;
/** `PUT /api/v1/tenants/:name/quota` body. */
export const SetQuotaSchema = z
  .object({
    guaranteedGpuEquivalents: z
      .number()
      .min(0)
      .max(1_000_000)
      .describe('GPU-equivalents the tenant is guaranteed (reclaimed by preemption from borrowers when it needs them)'),
    limitGpuEquivalents: z
      .number()
      .min(0)
      .max(1_000_000)
      .nullable()
      .describe('most GPU-equivalents the tenant may use, borrowing included; null = no limit'),
  })
  .strict()
  .refine((q) => q.limitGpuEquivalents === null || q.limitGpuEquivalents >= q.guaranteedGpuEquivalents, {
    message: 'limitGpuEquivalents must be at least guaranteedGpuEquivalents (or null for no limit)',
    path: ['limitGpuEquivalents'],
    params: UNPROCESSABLE,
  });
/** One tenant's use against its quota (`GET /api/v1/quotas`). */
export const QuotaUseSchema = z.object({
  tenant: z.string(),
  guaranteedGpuEquivalents: z.number(),
  limitGpuEquivalents: z.number().nullable(),
  usedGpuEquivalents: z.number().describe('held by scheduled and running jobs'),
  borrowedGpuEquivalents: z.number().describe('used above the guarantee (may be reclaimed)'),
  queuedGpuEquivalents: z.number().describe('asked by pending and preempted jobs'),
  runningJobs: z.number().int(),
  queuedJobs: z.number().int(),
});
/** `POST /api/v1/backup` body: absolute path on the server's machine. */
export const BackupSchema = z
  .object({
    // The note goes on the last ZodString: each string check (startsWith) makes a new one.
    path: documented(z.string().startsWith('/', 'path must be absolute'), {
      pattern: `^/${withoutControlCharactersPattern}$`,
    }).refine(
      (path) => !CONTROL_CHARACTER.test(path),
      (path) => ({
        message:
          `must be an absolute path without ${CONTROL_CHARACTERS_IN_WORDS}: got ` +
          `${codePointName(CONTROL_CHARACTER.exec(path)![0])}`,
      }),
    ),
  })
  .strict();
/** Server status (`GET /api/v1/status`). */
export const StatusSchema = z.object({
  version: z.string(),
  draining: z.boolean(),
  gpuSource: z.enum(['nvidia-smi', 'simulated']),
  jobs: z.record(z.number().int()),
  freezer: z.string(),
  enforcement: z.object({
    host: z
      .object({
        cpuMilli: z
          .boolean()
          .describe("true: a job's cpuMilli is a cgroup CPU limit; false: accounted by the scheduler only"),
        hostMemoryMiB: z
          .boolean()
          .describe("true: a job's hostMemoryMiB is a cgroup memory limit; false: accounted by the scheduler only"),
        jobDefaults: z
          .object({
            pidsMax: z.number().int().nullable().describe('process limit of every job; null: none'),
            defaultHostMemoryMiB: z
              .number()
              .int()
              .nullable()
              .describe('memory limit of a job that asks for none, MiB (reserved like a request); null: none'),
            tenantDefaultHostMemoryMiB: z
              .record(z.number().int())
              .describe("tenants with their own default, MiB (only the caller's own for a tenant)"),
            cpuWeight: z.number().int().nullable().describe("CPU weight of every job's cgroup; null: none"),
          })
          .optional()
          .describe('the host limits every job gets on this host, each null when not enforced here'),
      })
      .describe('host limits: enforced when the host has the cgroup controllers'),
    gpu: z
      .object({
        exclusive: ShareEnforcementSchema,
        mig: ShareEnforcementSchema,
        mps: ShareEnforcementSchema.describe(
          'driver-per-process when this server runs MPS daemons (nvidia-cuda-mps-control on the host, no ' +
            'job sandbox), else not-enforced',
        ),
        timeslice: ShareEnforcementSchema,
      })
      .describe('GPU limits on this host, per sharing mode'),
  }),
  isolation: z
    .object({ sandboxed: z.boolean(), detail: z.string() })
    .describe('how jobs are kept apart on this host (docs/security.md)'),
  scheduler: z
    .object({
      passes: z.number().int(),
      lastPassMs: z.number(),
      p50PassMs: z.number(),
      p99PassMs: z.number(),
      maxPassMs: z.number(),
      maxPendingConsidered: z.number().int(),
      passesSkipped: z
        .number()
        .int()
        .describe('timer passes skipped since the start: nothing that could change their outcome happened'),
      maxSkippedCheckMs: z.number().describe('the longest check that skipped a pass, ms'),
    })
    .describe('durations of recent scheduling passes'),
  migReconfigurations: z
    .number()
    .int()
    .describe('GPUs whose MIG instances were destroyed or created since the server started'),
  checkpoint: z
    .object({ method: z.literal('signal'), transparentAvailable: z.boolean(), detail: z.string() })
    .describe('how preemption victims are checkpointed on this host'),
  you: z.object({ role: z.enum(['admin', 'tenant-admin', 'member', 'viewer', 'job']), tenant: z.string().nullable() }),
});
/** Error body of every failed call. */
export const ErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
