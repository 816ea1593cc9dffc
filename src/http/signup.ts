// GET /signup?ref=<code>: where a referral link (GET /api/economy/referral's referral_url) leads.
// Accounts here are created by the operator (admin API or CLI), not by visitors, so the page says
// who invited the visitor and how the operator creates the account with the referral attached.
// An unknown or malformed code gets the same page without an inviter (404), so codes cannot be
// probed for handles beyond what the link itself shows.
import { Router, type Request, type Response } from 'express';
import type { Services } from '../platform/service-registry.js';
import { html } from './html.js';
import { errorPage, layout, send } from './page.js';

type SignupDeps = Pick<Services, 'accounts' | 'logger'>;

export function signupRouter(services: SignupDeps): Router {
  const router = Router();
  router.get('/signup', async (req: Request, res: Response) => {
    try {
      const code = typeof req.query.ref === 'string' ? req.query.ref.trim().toUpperCase() : '';
      const inviter = code ? await services.accounts.referrerHandle(code) : null;
      send(res, inviter ? 200 : 404, inviter ? invitationPage(inviter, code) : errorPage('This invitation link is not valid: its referral code is unknown. Ask the person who sent it for a new link.', 'Invitation not found'));
    } catch (error) {
      services.logger.error({ err: error }, 'sign-up page failed');
      if (!res.headersSent) send(res, 500, errorPage('Something went wrong. Please try again later.', 'Sign up'));
    }
  });
  return router;
}

function invitationPage(inviter: string, code: string) {
  return layout(
    'Sign up',
    html`<div class="card">
<h1>You were invited by ${inviter}</h1>
<p>Accounts on this service are created by its operator. Ask them for an account and give them your referral code:</p>
<p class="code"><strong>${code}</strong></p>
<p>Operator: create it with the code attached, and the account's API key is printed once:</p>
<pre>npm run cli -- account create --handle &lt;handle&gt; --referred-by ${code}</pre>
<p>or <code>POST /api/admin/accounts</code> with <code>{"handle": "…", "referred_by": "${code}"}</code> and the admin token.</p>
</div>`,
  );
}
