// Download names carry the extension of the bytes served (src/http/download-name.ts).
import { describe, expect, it } from 'vitest';
import { dispositionHeader, fileNameFor } from '../../src/http/download-name.js';

describe('fileNameFor', () => {
  it.each([
    ['Phone photo', 'image/jpeg', 'Phone photo.jpg'],
    ['Phone photo.jpg', 'image/jpeg', 'Phone photo.jpg'],
    ['Phone photo.JPEG', 'image/jpeg', 'Phone photo.JPEG'],
    ['IMG_0001.heic', 'image/jpeg', 'IMG_0001.jpg'],
    ['scan.png', 'image/webp', 'scan.webp'],
    ['report v2.final', 'application/pdf', 'report v2.final.pdf'],
    ['chart', 'image/svg+xml; charset=utf-8', 'chart.svg'],
    ['job-7', 'application/zip', 'job-7.zip'],
    ['data', 'application/x-unknown-thing', 'data'],
  ])('%s served as %s is %s', (name, type, expected) => {
    expect(fileNameFor(name, type)).toBe(expected);
  });
});

describe('dispositionHeader', () => {
  it('quotes a plain name and gives a non-ASCII name as filename* with an ASCII fallback', () => {
    expect(dispositionHeader('attachment', 'notes "draft"', 'application/pdf')).toBe('attachment; filename="notes \\"draft\\".pdf"');
    expect(dispositionHeader('inline', 'Café', 'image/png')).toBe(`inline; filename="Caf?.png"; filename*=UTF-8''Caf%C3%A9.png`);
  });

  it('drops control characters, so a name cannot split the header', () => {
    expect(dispositionHeader('inline', 'a\r\nSet-Cookie: x', 'image/png')).toBe('inline; filename="aSet-Cookie: x.png"');
    expect(dispositionHeader('inline', '\n', 'image/png')).toBe('inline; filename=file.png'); // a token needs no quotes (RFC 6266)
  });
});
