// The per-request context shared by GraphQL over HTTP, over WebSocket and the REST shim:
// it authenticates the key, counts the request against the quotas, and carries the services.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Actor } from '../modules/accounts/index.js';
import type { Services } from '../platform/service-registry.js';
import { Unauthenticated } from '../platform/errors.js';
import type { BudgetHolder } from './request-budget.js';
import type { DataVersions } from '../modules/quota/index.js';

export interface Credentials {
  apiKey?: string;
  adminToken?: string;
  requestId: string;
  /** Origin the caller reached us at, for absolute URLs (PUBLIC_BASE_URL wins when set). */
  origin?: string;
  /** The client's address (Express's req.ip: X-Forwarded-For only under TRUST_PROXY). */
  clientAddress?: string;
}

export interface Context extends BudgetHolder {
  actor: Actor | null;
  admin: boolean;
  services: Services;
  requestId: string;
  /** RateLimit-* headers of this request, set when a key was presented. */
  quotaHeaders: Record<string, string>;
  /** Base of absolute URLs handed out (download_url ...), without a trailing slash. */
  baseUrl: string;
  /** The account's data versions as this request's admission read them (the REST shim's answer cache). */
  dataVersions?: DataVersions;
  /** The client's address, for limits on public operations (the ReplaceFlow demo). */
  clientAddress?: string;
}

/** Where this service is reached: absolute URLs use PUBLIC_BASE_URL, else the caller's origin, else localhost:PORT. */
export interface SiteAddress {
  publicBaseUrl?: string;
  port: number;
}

export async function createContext(services: Services, credentials: Credentials, site: SiteAddress): Promise<Context> {
  const admin = credentials.adminToken !== undefined && checkAdminToken(credentials.adminToken, services.adminToken);
  if (credentials.adminToken !== undefined && !admin) throw new Unauthenticated('invalid admin token');
  let actor: Actor | null = null;
  let quotaHeaders: Record<string, string> = {};
  let dataVersions: DataVersions | undefined;
  if (credentials.apiKey !== undefined) {
    const admitted = await services.admission.admit(credentials.apiKey);
    actor = admitted.actor;
    quotaHeaders = admitted.headers;
    dataVersions = admitted.dataVersions;
  }
  const baseUrl = site.publicBaseUrl ?? credentials.origin ?? `http://localhost:${site.port}`;
  let refunded = false;
  const refundBudget = async () => {
    if (!actor || refunded) return;
    refunded = true;
    await services.quota.refundBudget(actor);
  };
  const chargeRootField = async () => {
    if (actor) await services.quota.consume(actor);
  };
  const refundRootField = async () => {
    if (actor) await services.quota.refundBudget(actor);
  };
  return {
    actor,
    admin,
    services,
    requestId: credentials.requestId,
    quotaHeaders,
    baseUrl,
    dataVersions,
    clientAddress: credentials.clientAddress,
    acceptedFields: new Set(),
    refusedFields: new Set(),
    refundBudget,
    rootFieldsStarted: 0,
    rootFieldsRunning: [],
    chargeRootField,
    refundRootField,
  };
}

/**
 * Judges credentials without counting a request against any quota: a WebSocket's connection_init,
 * whose operations are each authenticated and counted again when they start. Throws what
 * createContext throws for the same credentials; returns the key's actor (null for the admin token alone).
 */
export async function checkCredentials(services: Pick<Services, 'adminToken' | 'auth'>, credentials: Credentials): Promise<Actor | null> {
  if (credentials.adminToken !== undefined) {
    if (!checkAdminToken(credentials.adminToken, services.adminToken)) throw new Unauthenticated('invalid admin token');
    if (credentials.apiKey === undefined) return null;
  }
  return services.auth.authenticate(credentials.apiKey);
}

/** Compares in constant time (digests of equal length). */
export function checkAdminToken(presented: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * Reads credentials from request headers (GraphQL over HTTP and the REST shim). `Authorization:
 * Bearer` is the admin token's second spelling (spec "Authentication"), read only when no API key
 * is sent: beside a key it is ignored, since proxies and browser tools add their own.
 */
export function credentialsFromHeaders(headers: { get(name: string): string | null }, requestId: string, origin?: string): Credentials {
  const apiKey = headers.get('x-api-key')?.trim() || undefined;
  const bearer = apiKey ? undefined : headers.get('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
  return {
    apiKey,
    adminToken: headers.get('x-admin-token')?.trim() || bearer?.trim() || undefined,
    requestId,
    origin,
  };
}
