// Public surface of the access module: policies are defined with it in each module's `*.access.ts`.
export { definePolicy, accessPolicies, requireKey, routeKeyRule, type AccessPolicy, type KeyRule, type Permission, type AuthScopeMap } from './access.js';
