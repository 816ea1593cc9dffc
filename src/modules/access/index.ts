// Public surface of the access module: policies are defined with it in each module's `*.access.ts`.
export { MISSING_KEY_MESSAGE, MISSING_SCOPE_MESSAGE, MASTER_KEY_REQUIRED_MESSAGE, definePolicy, accessPolicies, requireKey, authScopesOf, keyRuleName, ANY_KEY, MASTER_KEY, SCOPE, type AccessPolicy, type KeyRule, type Permission, type AuthScopeMap } from './access.js';
