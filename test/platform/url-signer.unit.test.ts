// Signed URLs: the same path and parameters always sign the same (a remembered signature equals a
// computed one), any change of path, parameter or key changes it, and verify accepts only exact ones.
import { describe, expect, it } from 'vitest';
import { UrlSigner } from '../../src/platform/url-signer.js';

describe('UrlSigner', () => {
  it('signs the same path and parameters the same way, remembered or not', () => {
    const signer = new UrlSigner('k'.repeat(43));
    const first = signer.sign('/media/7/thumbnail', { v: 'abc', w: 300 });
    expect(signer.sign('/media/7/thumbnail', { w: 300, v: 'abc' })).toBe(first); // parameter order does not matter
    expect(new UrlSigner('k'.repeat(43)).sign('/media/7/thumbnail', { v: 'abc', w: 300 })).toBe(first);
    expect(first).toMatch(/^\/media\/7\/thumbnail\?v=abc&w=300&sig=[A-Za-z0-9_-]{43}$/);
  });

  it('changes the signature with the path, a parameter or the key, and verifies only exact ones', () => {
    const signer = new UrlSigner('k'.repeat(43));
    const sig = (url: string) => new URL(url, 'http://x').searchParams.get('sig');
    const base = signer.sign('/media/7/original', { v: 'abc' });
    const others = [signer.sign('/media/8/original', { v: 'abc' }), signer.sign('/media/7/original', { v: 'abd' }), new UrlSigner('j'.repeat(43)).sign('/media/7/original', { v: 'abc' })];
    for (const other of others) expect(sig(other)).not.toBe(sig(base));
    expect(signer.verify('/media/7/original', { v: 'abc', sig: sig(base) })).toBe(true);
    expect(signer.verify('/media/7/original', { v: 'abd', sig: sig(base) })).toBe(false);
    expect(signer.verify('/media/7/original', { v: 'abc', extra: '1', sig: sig(base) })).toBe(false);
  });
});
