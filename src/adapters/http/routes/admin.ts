/**
 * Admin and status routes: tenants, quotas, drain, backup, status (tokens: tokens.ts).
 */
import { invalidField } from '../../../app/errors.js';
import { z } from 'zod';
import {
  BackupSchema,
  NoBodySchema,
  TENANT_NAME,
  CreateTenantSchema,
  QuotaUseSchema,
  SetQuotaSchema,
  SetTenantLimitsSchema,
  StatusSchema,
  TenantSchema,
} from '../../../contract/api.js';
import type { TenantRecord } from '../../../app/ports/state-store.js';
import { authorize } from '../../../app/auth/authorize.js';
import type { ServerServices } from '../server-services.js';
import type { Api } from './jobs.js';

/** errno codes of a backup path the server cannot write. */
const UNWRITABLE_PATH_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG']);

/** Registers the admin routes. */
export function registerAdminRoutes(api: Api, services: ServerServices): void {
  const { admin, plane } = services;
  const tenantView = (t: TenantRecord) => ({
    name: t.name,
    createdAt: new Date(t.createdAtMs).toISOString(),
    guaranteedGpuEquivalents: t.guaranteedGpuEquivalents,
    limitGpuEquivalents: t.limitGpuEquivalents,
    unixUid: services.tenantUid?.(t.name) ?? null,
    maxPriorityClass: t.maxPriorityClass,
    requestsPerSecond: t.requestsPerSecond,
    requestBurst: t.requestBurst,
    eventStreamsPerToken: t.eventStreamsPerToken,
  });
  api.post(
    '/tenants',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create a tenant (admin)',
        body: CreateTenantSchema,
        response: { 201: TenantSchema },
      },
    },
    async (request, reply) => {
      const tenant = admin.createTenant(request.principal, request.body.name);
      return reply.status(201).send(tenantView(tenant));
    },
  );
  api.put(
    '/tenants/:name/quota',
    {
      schema: {
        tags: ['admin'],
        summary: "Set a tenant's quota in GPU-equivalents (admin)",
        params: z.object({ name: TENANT_NAME }),
        body: SetQuotaSchema,
        response: { 200: TenantSchema },
      },
    },
    async (request) => {
      return tenantView(admin.setQuota(request.principal, request.params.name, request.body));
    },
  );
  api.put(
    '/tenants/:name/limits',
    {
      schema: {
        tags: ['admin'],
        summary: "Set a tenant's highest priority class and per-token request and event-stream limits (admin)",
        params: z.object({ name: z.string() }),
        body: SetTenantLimitsSchema,
        response: { 200: TenantSchema },
      },
    },
    async (request) => {
      return tenantView(admin.setLimits(request.principal, request.params.name, request.body));
    },
  );
  api.get(
    '/quotas',
    {
      schema: {
        tags: ['admin'],
        summary: 'Use against quota per tenant (a tenant sees its own)',
        response: { 200: z.object({ quotas: z.array(QuotaUseSchema) }) },
      },
    },
    async (request) => {
      return { quotas: admin.quotas(request.principal) };
    },
  );
  api.get(
    '/tenants',
    {
      schema: {
        tags: ['admin'],
        summary: 'List tenants',
        response: { 200: z.object({ tenants: z.array(TenantSchema) }) },
      },
    },
    async (request) => ({
      tenants: admin.listTenants(request.principal).map(tenantView),
    }),
  );
  api.post(
    '/drain',
    {
      schema: {
        tags: ['admin'],
        summary: 'Stop starting jobs; the server exits once none runs (admin)',
        body: NoBodySchema,
        response: { 202: z.object({ draining: z.boolean(), running: z.number().int() }) },
      },
    },
    async (request, reply) => {
      authorize(request.principal, 'server.drain');
      plane.drain(services.onDrained);
      return reply.status(202).send({ draining: true, running: plane.runningJobs().length });
    },
  );
  api.post(
    '/backup',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Write a consistent copy of the store to a new file (admin); a path with `..` or through a symbolic link ' +
          'a user other than root could have placed is refused (422 naming path)',
        body: BackupSchema,
        response: { 200: z.object({ path: z.string(), bytes: z.number().int() }) },
      },
    },
    async (request) => {
      authorize(request.principal, 'server.backup');
      const { path } = request.body;
      // The store refuses `..`, symbolic links another user could have placed, a missing folder and
      // an existing file, all as 422 naming `path` (adapters/store/caller-path.ts).
      let bytes: number;
      try {
        bytes = await admin.backup(request.principal, path);
      } catch (error) {
        // A place the server may not write (a read-only or pseudo file system, no permission) is the
        // caller's choice of path, not a server failure.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== undefined && UNWRITABLE_PATH_CODES.has(code))
          throw invalidField('path', `the server cannot write ${path}: ${code}`);
        throw error;
      }
      return { path, bytes };
    },
  );
  api.get(
    '/status',
    { schema: { tags: ['admin'], summary: 'Server status', response: { 200: StatusSchema } } },
    async (request) => {
      authorize(request.principal, 'server.status');
      return services.status(request.principal);
    },
  );
}
