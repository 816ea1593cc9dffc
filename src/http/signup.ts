// GET /signup?ref=<code>: where a referral link (GET /api/economy/referral's referral_url) leads.
// Sign-up closed (the default): the page says who invited the visitor and how the operator creates
// the account with the referral attached. Sign-up open (SIGNUP_OPEN): the page is a form; POST
// /signup creates the account through the accounts service with the referral applied and shows
// its key once. The form is guarded by its Origin (a browser sends it with every POST: a post
// from another site is refused, so no token is needed) and by counters per address and overall.
// An unknown or malformed code gets the same page without an inviter (404), so codes cannot be
// probed for handles beyond what the link itself shows.
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../platform/service-registry.js';
import type { SignupConfig } from '../modules/accounts/accounts.settings.js';
import { AppError } from '../platform/errors.js';
import { html, type SafeHtml } from './html.js';
import { errorPage, guardedPage, layout, send } from './page.js';

type SignupDeps = Pick<Services, 'accounts' | 'quota' | 'logger'>;

const HOUR_MS = 3_600_000;
/** Sign-ups an hour from one address, and from everyone (SIGNUP_OPEN's description says them). */
export const SIGNUPS_PER_ADDRESS_PER_HOUR = 5;
export const SIGNUPS_PER_HOUR = 50;

export function signupRouter(services: SignupDeps, settings: SignupConfig & { publicBaseUrl?: string }): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  router.get('/signup', (req, res) =>
    guardedPage(res, services.logger, 'Sign up', async () => {
      const code = referralCode(req.query.ref);
      const inviter = code ? await services.accounts.referrerHandle(code) : null;
      if (!inviter) return send(res, 404, unknownCodePage());
      send(res, 200, settings.open ? formPage(inviter, code) : operatorPage(inviter, code));
    }),
  );

  router.post(
    '/signup',
    (req: Request, res: Response, next: NextFunction) => form(req, res, (error?: unknown) => (error ? send(res, 400, errorPage('That request could not be read.', 'Sign up')) : next())),
    (req, res) => guardedPage(res, services.logger, 'Sign up', () => signUp(services, settings, req, res)),
  );
  return router;
}

async function signUp(services: SignupDeps, settings: SignupConfig & { publicBaseUrl?: string }, req: Request, res: Response): Promise<void> {
  if (!settings.open) return send(res, 403, errorPage('Sign-up is not open on this service: its operator creates accounts. Open your invitation link again to see how.', 'Sign up'));
  if (!sameOrigin(req, settings.publicBaseUrl)) return send(res, 403, errorPage('This form can only be sent from its own page on this site. Open your invitation link and send it from there.', 'Sign up'));
  const body = (req.body ?? {}) as Record<string, unknown>;
  const code = referralCode(body.ref);
  const handle = typeof body.handle === 'string' ? body.handle.trim() : '';
  const inviter = code ? await services.accounts.referrerHandle(code) : null;
  if (!inviter) return send(res, 404, unknownCodePage());
  if (!handle) return send(res, 400, formPage(inviter, code, handle, 'Choose a handle.'));

  // Counted before the account is made, so concurrent posts cannot outrun the limits.
  const attempt = await services.quota.take(
    [
      { key: `signup:${req.ip ?? ''}`, limit: SIGNUPS_PER_ADDRESS_PER_HOUR },
      { key: 'signup', limit: SIGNUPS_PER_HOUR },
    ],
    HOUR_MS,
  );
  if (!attempt.taken) {
    res.set('Retry-After', String(attempt.retryAfterSeconds));
    return send(res, 429, formPage(inviter, code, handle, `Too many sign-ups right now. Try again in ${Math.ceil(attempt.retryAfterSeconds / 60)} minutes.`));
  }
  try {
    const { account, apiKey } = await services.accounts.create({ handle, referredBy: code });
    send(res, 201, createdPage(account.handle, apiKey));
  } catch (error) {
    // The service's own words, naming the field (a handle's rules, a handle already taken).
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    // A refused handle made no account: its unit goes back, so a typo does not use up the hour.
    await Promise.all([services.quota.giveBack(`signup:${req.ip ?? ''}`, HOUR_MS), services.quota.giveBack('signup', HOUR_MS)]);
    return send(res, error.status, formPage(inviter, code, handle, error.message));
  }
}

/** Whether the post's Origin is this service's (the request's own host, or PUBLIC_BASE_URL's). */
function sameOrigin(req: Request, publicBaseUrl?: string): boolean {
  const origin = req.get('origin');
  if (!origin) return false;
  const own = [`${req.protocol}://${req.get('host') ?? ''}`];
  if (publicBaseUrl) own.push(new URL(publicBaseUrl).origin);
  return own.includes(origin);
}

function referralCode(value: unknown): string {
  return typeof value === 'string' ? value.trim().toUpperCase() : '';
}


function unknownCodePage(): SafeHtml {
  return errorPage('This invitation link is not valid: its referral code is unknown. Ask the person who sent it for a new link.', 'Invitation not found');
}

function operatorPage(inviter: string, code: string): SafeHtml {
  return layout(
    'Sign up',
    html`<div class="card">
<h1>You were invited by ${inviter}</h1>
<p>Accounts on this service are created by its operator. Ask them for an account and give them your referral code:</p>
<p class="code"><strong>${code}</strong></p>
<p>Operator: create it with the code attached, and the account's API key is printed once:</p>
<pre>npm run cli -- account create --handle &lt;handle&gt; --referred-by ${code}</pre>
<p>or <code>POST /api/admin/accounts</code> with <code>{"handle": "…", "referred_by": "${code}"}</code> and the admin token. To let visitors sign up here themselves, set <code>SIGNUP_OPEN=true</code>.</p>
</div>`,
  );
}

function formPage(inviter: string, code: string, handle = '', error?: string): SafeHtml {
  return layout(
    'Sign up',
    html`<div class="card">
<h1>You were invited by ${inviter}</h1>
<p>Choose a handle for your account: 2 to 32 letters, digits, _ or -. Your API key is shown once, on the next page.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : html``}
<form method="post" action="/signup">
<input type="hidden" name="ref" value="${code}">
<label for="handle">Handle</label>
<input type="text" id="handle" name="handle" value="${handle}" required autocomplete="username" autofocus>
<button type="submit">Create my account</button>
</form>
</div>`,
  );
}

function createdPage(handle: string, apiKey: string): SafeHtml {
  return layout(
    'Account created',
    html`<div class="card">
<h1>Welcome, ${handle}</h1>
<p>Your API key is below. It is shown only this once: copy it now and keep it secret. Send it in the <code>X-API-Key</code> header of every request.</p>
<pre class="key">${apiKey}</pre>
</div>`,
  );
}
