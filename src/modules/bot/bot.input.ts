// What each chat command's arguments may be. A refusal names the argument as /help spells it
// (image_id, policy ...), like the REST routes' 400s name their fields.
import { z } from 'zod';
import { objectId } from '../../platform/validation.js';
import { INTEL_ACTIONS, INTEL_POLICIES } from '../intel/index.js';

/** Longest argument text taken from a message (Telegram allows 4096 characters). */
export const MAX_ARGUMENT_TEXT = 1000;

const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);
/** A positive 32-bit id written in digits, or undefined. */
const idOf = (text: string | undefined): number | undefined => {
  const parsed = text !== undefined && /^\d{1,10}$/.test(text) ? objectId.safeParse(Number(text)) : undefined;
  return parsed?.success ? parsed.data : undefined;
};

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const fail = (message: string): Parsed<never> => ({ ok: false, message });

/** /policy <image_id> <policy> */
export function parsePolicy(text: string): Parsed<{ imageId: number; policy: (typeof INTEL_POLICIES)[number] }> {
  const [id, policy, extra] = words(text);
  const imageId = idOf(id);
  if (imageId === undefined) return fail(`image_id: expected the integer id of your community image. Usage: /policy <image_id> <${INTEL_POLICIES.join('|')}>`);
  const valid = z.enum(INTEL_POLICIES).safeParse(policy?.toLowerCase());
  if (!valid.success || extra !== undefined) return fail(`policy: expected one of ${INTEL_POLICIES.join(', ')}. Usage: /policy <image_id> <${INTEL_POLICIES.join('|')}>`);
  return { ok: true, value: { imageId, policy: valid.data } };
}

/** /proposals <image_id> */
export function parseProposals(text: string): Parsed<{ imageId: number }> {
  const [id, extra] = words(text);
  const imageId = idOf(id);
  if (imageId === undefined || extra !== undefined) return fail('image_id: expected the integer id of a community image. Usage: /proposals <image_id>');
  return { ok: true, value: { imageId } };
}

/** /resolve <proposal_id> approve|reject */
export function parseResolve(text: string): Parsed<{ proposalId: number; action: (typeof INTEL_ACTIONS)[number] }> {
  const [id, action, extra] = words(text);
  const proposalId = idOf(id);
  if (proposalId === undefined) return fail(`proposal_id: expected the integer id of a proposal (see /proposals). Usage: /resolve <proposal_id> <${INTEL_ACTIONS.join('|')}>`);
  const valid = z.enum(INTEL_ACTIONS).safeParse(action?.toLowerCase());
  if (!valid.success || extra !== undefined) return fail(`action: expected ${INTEL_ACTIONS.join(' or ')}. Usage: /resolve <proposal_id> <${INTEL_ACTIONS.join('|')}>`);
  return { ok: true, value: { proposalId, action: valid.data } };
}

/** /wiki <slug> [photo_type] (the caption of a photo, or a reply to one) */
export function parseWiki(text: string): Parsed<{ slug: string; photoType?: string }> {
  const [slug, ...rest] = words(text);
  if (!slug || slug.length > 200) return fail('slug: expected the subject slug. Send a photo with the caption /wiki <slug> [photo_type], or reply to a photo with it');
  const photoType = rest.join(' ').slice(0, MAX_ARGUMENT_TEXT) || undefined;
  return { ok: true, value: { slug, photoType } };
}

/** The text after a command, at most MAX_ARGUMENT_TEXT characters (the services judge it further). */
export function argumentText(text: string): string {
  return text.trim().slice(0, MAX_ARGUMENT_TEXT);
}

/** Inline button data: `wv:<photo id>:c|r` (a wiki vote), `ak:rotate|cancel` (the key rotation). At most 64 bytes. */
export function parseCallback(data: string): { kind: 'vote'; photoId: number; vote: 'confirm' | 'reject' } | { kind: 'key'; rotate: boolean } | null {
  const vote = /^wv:(\d{1,10}):([cr])$/.exec(data);
  if (vote) {
    const photoId = idOf(vote[1]);
    return photoId === undefined ? null : { kind: 'vote', photoId, vote: vote[2] === 'c' ? 'confirm' : 'reject' };
  }
  if (data === 'ak:rotate' || data === 'ak:cancel') return { kind: 'key', rotate: data === 'ak:rotate' };
  return null;
}

export const voteButton = (photoId: number, vote: 'confirm' | 'reject') => `wv:${photoId}:${vote === 'confirm' ? 'c' : 'r'}`;
