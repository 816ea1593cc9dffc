// Share passwords (scrypt, salted, constant-time check), gallery access cookies and the HTML
// template helper: no database.
import { describe, expect, it } from 'vitest';
import { hashSharePassword, verifySharePassword, galleryPath, SHARE_TOKEN_PATTERN } from '../../src/modules/collections/collections.service.js';
import { GalleryService } from '../../src/modules/collections/gallery.service.js';
import type { CollectionsService } from '../../src/modules/collections/collections.service.js';
import type { QuotaService } from '../../src/modules/quota/quota.service.js';
import { escapeHtml, html, SafeHtml } from '../../src/http/html.js';
import { UrlSigner } from '../../src/platform/url-signer.js';
import type { Collection } from '../../src/generated/prisma/client.js';

describe('share passwords', () => {
  it('hashes with scrypt and a fresh salt, and verifies only the right password', async () => {
    const first = await hashSharePassword('tide pools');
    const second = await hashSharePassword('tide pools');
    expect(first).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    expect(first).not.toContain('tide');
    expect(await verifySharePassword('tide pools', first)).toBe(true);
    expect(await verifySharePassword('tide pools', second)).toBe(true);
    expect(await verifySharePassword('tide pool', first)).toBe(false);
    expect(await verifySharePassword('', first)).toBe(false);
  });

  it('treats the two Unicode forms of the same text as one password', async () => {
    const composed = 'caf\u00e9 au lait';
    const decomposed = 'cafe\u0301 au lait';
    expect(await verifySharePassword(decomposed, await hashSharePassword(composed))).toBe(true);
  });

  it('answers false (without throwing) for malformed or hostile stored hashes', async () => {
    const good = await hashSharePassword('abcd');
    const parts = good.split('$');
    for (const stored of ['', 'plain', 'bcrypt$x$y$z$a$b', good.replace('scrypt', 'md5'), [...parts.slice(0, 5), 'AAAA'].join('$'), ['scrypt', '4294967296', '8', '1', parts[4], parts[5]].join('$'), ['scrypt', '-1', '8', '1', parts[4], parts[5]].join('$'), ['scrypt', '16384', '100000', '1', parts[4], parts[5]].join('$')]) {
      expect(await verifySharePassword('abcd', stored), stored).toBe(false);
    }
  });
});

describe('gallery tokens and cookies', () => {
  const signer = new UrlSigner('unit-test-key');
  // Cookies need only the signer; the collections and the attempt counter are not reached here.
  const accessCookie = ({ signer }: { signer: UrlSigner }, c: Collection, exp: number) =>
    new GalleryService({} as CollectionsService, {} as Pick<QuotaService, 'take' | 'forget' | 'giveBack'>, signer).accessCookie(c, exp);
  const collection = (token: string, passwordHash: string | null): Collection => ({
    id: 1,
    accountId: 1,
    name: 'c',
    description: null,
    shareToken: token,
    sharePublic: passwordHash === null,
    sharePasswordHash: passwordHash,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  });

  it('gallery paths and the token pattern', () => {
    expect(galleryPath('abc')).toBe('/gallery/abc');
    expect(SHARE_TOKEN_PATTERN.test('A'.repeat(32))).toBe(true);
    expect(SHARE_TOKEN_PATTERN.test('A'.repeat(31))).toBe(false);
    expect(SHARE_TOKEN_PATTERN.test(`${'A'.repeat(31)}/`)).toBe(false);
  });

  it('binds the access cookie to the token, the expiry and the password hash', () => {
    const exp = 2_000_000_000;
    const base = accessCookie({ signer }, collection('T'.repeat(32), 'scrypt$1'), exp);
    expect(base).toMatch(/^2000000000\.[A-Za-z0-9_-]{43}$/);
    expect(accessCookie({ signer }, collection('T'.repeat(32), 'scrypt$1'), exp)).toBe(base);
    expect(accessCookie({ signer }, collection('U'.repeat(32), 'scrypt$1'), exp)).not.toBe(base);
    expect(accessCookie({ signer }, collection('T'.repeat(32), 'scrypt$2'), exp)).not.toBe(base);
    expect(accessCookie({ signer }, collection('T'.repeat(32), 'scrypt$1'), exp + 1).split('.')[1]).not.toBe(base.split('.')[1]);
    expect(accessCookie({ signer: new UrlSigner('other-key') }, collection('T'.repeat(32), 'scrypt$1'), exp)).not.toBe(base);
  });
});

describe('html', () => {
  it('escapes every interpolated value, including in attributes', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;');
    const name = '"><script>alert(1)</script>';
    expect(html`<img alt="${name}">`.value).toBe('<img alt="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">');
  });

  it('keeps nested fragments, joins arrays and drops null, undefined and false', () => {
    const items = ['<b>', 'c&d'].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>&lt;b&gt;</li><li>c&amp;d</li></ul>0');
    expect(html`${new SafeHtml('<br>')}`.value).toBe('<br>');
  });
});
