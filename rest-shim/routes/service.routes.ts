// The service's own routes (no key), served by routers under src/http: the health check, the
// OpenAPI document of this table and its browsable page.
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
