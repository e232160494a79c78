/**
 * The zod schemas the API client checks answers with, by name. api-client.ts imports this module
 * only when a call needs one (not for a job or a listing, which job-check.ts checks without zod), so
 * a client that only submits or lists never builds them.
 */
import { z } from 'zod';
import {
  ErrorSchema,
  GpuSchema,
  JobDetailSchema,
  JobSchema,
  LogsSchema,
  NewTokenSchema,
  QosReportResultSchema,
  QuotaUseSchema,
  StatusSchema,
  TenantSchema,
  TokenSchema,
} from '../../contract/api.js';
import { AuditListSchema } from '../../contract/audit.js';
import { BulkCancelResultSchema } from '../../contract/bulk-cancel.js';

/** Each answer's schema by name. */
export const ANSWER_SCHEMAS = {
  error: ErrorSchema,
  health: z.object({ status: z.literal('ok') }),
  jobList: z.object({ jobs: z.array(JobSchema) }),
  jobDetail: JobDetailSchema,
  bulkCancel: BulkCancelResultSchema,
  logs: LogsSchema,
  gpu: GpuSchema,
  gpuList: z.object({ gpus: z.array(GpuSchema) }),
  tenant: TenantSchema,
  tenantList: z.object({ tenants: z.array(TenantSchema) }),
  quotaList: z.object({ quotas: z.array(QuotaUseSchema) }),
  newToken: NewTokenSchema,
  token: TokenSchema,
  tokenList: z.object({ tokens: z.array(TokenSchema) }),
  drain: z.object({ draining: z.boolean(), running: z.number().int() }),
  backup: z.object({ path: z.string(), bytes: z.number().int() }),
  status: StatusSchema,
  qosReportResult: QosReportResultSchema,
  auditList: AuditListSchema,
};

/** The schemas of {@link ANSWER_SCHEMAS}. */
export type AnswerSchemas = typeof ANSWER_SCHEMAS;
