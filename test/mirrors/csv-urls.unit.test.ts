// The URLs of a bulk mirror CSV: one per line or cell, RFC 4180 quoting, any line ends, a BOM, a
// header line without URLs skipped, blank cells ignored; and the URL normalisation that makes two
// spellings of one address count once.
import { describe, expect, it } from 'vitest';
import { MAX_CSV_BYTES, normaliseUrl, urlsInCsv } from '../../src/modules/mirrors/mirrors.input.js';
import { AppError } from '../../src/platform/errors.js';

const csv = (text: string) => urlsInCsv(Buffer.from(text, 'utf8'));
const texts = (text: string) => csv(text).map((u) => u.text);

function refusal(run: () => unknown): { status: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('urlsInCsv', () => {
  it('reads one URL per line, skipping a header line and blank lines', () => {
    expect(texts('url\nhttps://a.example/1.jpg\n\nhttps://a.example/2.jpg\n')).toEqual(['https://a.example/1.jpg', 'https://a.example/2.jpg']);
    expect(texts('https://a.example/1.jpg\nhttps://a.example/2.jpg')).toEqual(['https://a.example/1.jpg', 'https://a.example/2.jpg']);
  });

  it('reads several URLs per line, quoted cells (with commas), CRLF, CR, a BOM and blank cells', () => {
    const text = '\ufeffImage,Mirror\r\nhttps://a.example/1.jpg, https://b.example/1.jpg\r\n"https://a.example/2,3.jpg",,\r\n ,"https://b.example/""q"".jpg"\rhttps://c.example/4.jpg';
    expect(csv(text)).toEqual([
      { text: 'https://a.example/1.jpg', where: 'file: line 2, column 1' },
      { text: 'https://b.example/1.jpg', where: 'file: line 2, column 2' },
      { text: 'https://a.example/2,3.jpg', where: 'file: line 3, column 1' },
      { text: 'https://b.example/"q".jpg', where: 'file: line 4, column 2' },
      { text: 'https://c.example/4.jpg', where: 'file: line 5, column 1' },
    ]);
  });

  it('keeps a first line that holds a URL, and every later cell, for the caller to judge', () => {
    expect(texts('https://a.example/1.jpg,title\nnot a url')).toEqual(['https://a.example/1.jpg', 'title', 'not a url']);
  });

  it('refuses what is not a readable CSV text, and one over the size limit', () => {
    expect(refusal(() => csv('"https://a.example/1.jpg\nhttps://a.example/2.jpg'))).toEqual({ status: 400, message: expect.stringMatching(/^file: not a readable CSV: Quote Not Closed/) });
    expect(refusal(() => urlsInCsv(Buffer.from([0xff, 0xfe, 0x00, 0x41])))).toEqual({ status: 400, message: 'file: expected a CSV text file in UTF-8' });
    expect(refusal(() => csv('https://a.example/1.jpg\u0000'))).toEqual({ status: 400, message: 'file: expected a CSV text file, not binary data' });
    expect(refusal(() => urlsInCsv(Buffer.alloc(MAX_CSV_BYTES + 1, 0x61)))).toEqual({ status: 413, message: 'file: expected a CSV of at most 2,097,152 bytes' });
    expect(texts('')).toEqual([]);
  });
});

describe('normaliseUrl', () => {
  it('trims, lower-cases scheme and host, drops the fragment and keeps the rest', () => {
    expect(normaliseUrl('  HTTPS://Example.COM:443/Path/A.jpg?X=1#frag ')).toEqual({ url: 'https://example.com/Path/A.jpg?X=1' });
    expect(normaliseUrl('http://example.com')).toEqual({ url: 'http://example.com/' });
  });

  it('says what is wrong with anything else', () => {
    expect(normaliseUrl('ftp://example.com/a')).toEqual({ problem: 'expected an absolute http or https URL, not "ftp://example.com/a"' });
    expect(normaliseUrl('/relative.jpg')).toEqual({ problem: 'expected an absolute http or https URL, not "/relative.jpg"' });
    expect(normaliseUrl('http://')).toEqual({ problem: 'expected an absolute http or https URL, not "http://"' });
    expect(normaliseUrl(`https://example.com/${'x'.repeat(2048)}`)).toEqual({ problem: 'expected at most 2048 characters' });
  });
});
