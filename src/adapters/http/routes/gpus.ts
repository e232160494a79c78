/**
 * GPU routes: list with shares, cordon and uncordon.
 */
import { z } from 'zod';
import { decimalParameter, GpuSchema, NoBodySchema } from '../../../contract/api.js';
import type { ServerServices } from '../server-services.js';
import type { Api } from './jobs.js';

const IndexParams = z.object({ index: decimalParameter(0, 1_000_000, 'the GPU index (see GET /gpus)') });

/** Registers the GPU routes. */
export function registerGpuRoutes(api: Api, { jobs }: ServerServices): void {
  api.get(
    '/gpus',
    {
      schema: {
        tags: ['gpus'],
        summary: 'GPUs with the jobs sharing them',
        response: { 200: z.object({ gpus: z.array(GpuSchema) }) },
      },
    },
    async (request) => ({ gpus: jobs.gpus(request.principal) }),
  );
  api.post(
    '/gpus/:index/cordon',
    {
      schema: {
        tags: ['gpus'],
        summary: 'Take a GPU out of service (admin)',
        params: IndexParams,
        body: NoBodySchema,
        response: { 200: GpuSchema },
      },
    },
    async (request) => jobs.setCordon(request.principal, request.params.index, true),
  );
  api.post(
    '/gpus/:index/uncordon',
    {
      schema: {
        tags: ['gpus'],
        summary: 'Put a GPU back in service (admin)',
        params: IndexParams,
        body: NoBodySchema,
        response: { 200: GpuSchema },
      },
    },
    async (request) => jobs.setCordon(request.principal, request.params.index, false),
  );
}
