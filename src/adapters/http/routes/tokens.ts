/**
 * Token routes: list, create, revoke and rotate API tokens (src/app/auth/token-service.ts decides
 * who may). Secrets appear only in the answer that creates or rotates them; digests never.
 */
import { z } from 'zod';
import { CreateTokenSchema, NewTokenSchema, NoBodySchema, TokenSchema } from '../../../contract/api.js';
import type { ServerServices } from '../server-services.js';
import type { Api } from './jobs.js';

/** `:id` of a token: a decimal integer (no sign, no leading zeros, no hex, no spaces). */
const TokenIdParams = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,14}$/, 'a token id is a decimal integer such as 7')
    .transform(Number)
    .describe('token id'),
});

/** Registers the token routes. */
export function registerTokenRoutes(api: Api, { admin }: ServerServices): void {
  const { tokens } = admin;
  api.get(
    '/tokens',
    {
      schema: {
        tags: ['tokens'],
        summary: "List the tokens the caller may see (admin: all; tenant-admin: its tenant's; others: their own)",
        response: { 200: z.object({ tokens: z.array(TokenSchema) }) },
      },
    },
    async (request) => ({
      tokens: tokens.list(request.principal),
    }),
  );
  api.post(
    '/tokens',
    {
      schema: {
        tags: ['tokens'],
        summary: 'Create a token (role member unless given); the secret is shown once',
        body: CreateTokenSchema,
        response: { 201: NewTokenSchema },
      },
    },
    async (request, reply) => {
      const { tenant, role, label, expiresInSeconds, expiresAt } = request.body;
      return reply.status(201).send(
        tokens.create(request.principal, {
          role,
          label,
          ...(tenant !== undefined && { tenant }),
          ...(expiresInSeconds !== undefined && { expiresInSeconds }),
          ...(expiresAt !== undefined && { expiresAt }),
        }),
      );
    },
  );
  api.post(
    '/tokens/:id/revoke',
    {
      schema: {
        tags: ['tokens'],
        summary: 'Revoke a token: its next request gets 401',
        params: TokenIdParams,
        body: NoBodySchema,
        response: { 200: TokenSchema },
      },
    },
    async (request) => {
      return tokens.revoke(request.principal, request.params.id);
    },
  );
  api.post(
    '/tokens/:id/rotate',
    {
      schema: {
        tags: ['tokens'],
        summary: 'Give a token a new secret (shown once); the old one gets 401 from now on',
        params: TokenIdParams,
        body: NoBodySchema,
        response: { 200: NewTokenSchema },
      },
    },
    async (request) => {
      return tokens.rotate(request.principal, request.params.id);
    },
  );
}
