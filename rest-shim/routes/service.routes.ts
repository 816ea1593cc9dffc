// The service's own routes, served by routers under src/http: the health (liveness) and readiness
// checks, the Prometheus metrics (admin token), the OpenAPI document of this table and its page.
import { z } from 'zod';
import { defineMountedRoute } from '../route.js';

export const serviceRoutes = [
  defineMountedRoute({
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    summary: 'Health check: the database answers',
    response: z.object({ status: z.literal('ok') }),
    errors: { 503: 'the database is unreachable' },
  }),
  defineMountedRoute({
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    summary: 'Readiness check: the database, the job queue and the blob store answer, each within a short deadline',
    response: z.object({
      status: z.literal('ready'),
      checks: z.record(z.string(), z.object({ ok: z.boolean(), target: z.string(), ms: z.number().int(), error: z.string().optional() })),
    }),
    errors: { 503: 'a dependency failed its check: the message and `checks` name which one and why' },
  }),
  defineMountedRoute({
    method: 'GET',
    path: '/metrics',
    auth: 'admin',
    summary: 'Prometheus metrics (text exposition format): requests, jobs, webhook deliveries, providers, ledger totals, process',
    produces: [{ status: 200, description: 'The metrics', contentTypes: ['text/plain'] }],
    errors: { 401: 'the admin token is missing or wrong' },
  }),
  defineMountedRoute({
    method: 'GET',
    path: '/openapi.json',
    auth: 'none',
    summary: 'This document: OpenAPI 3.1, made from the route table',
    produces: [{ status: 200, description: 'The OpenAPI document', contentTypes: ['application/json'] }],
  }),
  defineMountedRoute({
    method: 'GET',
    path: '/docs',
    auth: 'none',
    summary: 'A browsable page of this document (Swagger UI, served by this service; it loads nothing from elsewhere)',
    produces: [{ status: 200, description: 'The page', contentTypes: ['text/html'] }],
  }),
];
