// What configuration says about accounts (src/config.ts reads it). A leaf file (zod only).
import { boolish } from '../../platform/env.js';

/** SIGNUP_OPEN, spread into the configuration's schema. */
export const accountsEnvShape = {
  SIGNUP_OPEN: boolish
    .default(false)
    .describe("let a visitor holding a referral link (`/signup?ref=<code>`) create an account there: a handle, the referral attached, the new key shown once; at most 5 sign-ups an hour from one address and 50 an hour in all. Off: the page tells the operator's way (`npm run cli -- account create --referred-by <code>`)"),
};

export interface SignupConfig {
  open: boolean;
}

export function signupConfigFrom(e: { SIGNUP_OPEN: boolean }): SignupConfig {
  return { open: e.SIGNUP_OPEN };
}
