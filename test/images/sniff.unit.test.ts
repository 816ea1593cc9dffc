// What an upload is, from its bytes alone: videos and documents named as if they were JPEGs.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { processUpload } from '../../src/modules/images/index.js';
import { docx, isoMedia, LIMITS, PDF, webm, zip } from './fixtures.js';

describe('processUpload: videos and documents, by their bytes', () => {
  // The uploads are named as if they were JPEGs; processUpload never sees a name or declared type.
  const uploads: Array<[string, () => Buffer, string, string, string]> = [
    ['invoice.jpg (a PDF)', () => PDF, 'document', 'application/pdf', 'pdf'],
    ['clip.jpg (an MP4)', () => isoMedia('isom', ['isom', 'iso2', 'avc1', 'mp41']), 'video', 'video/mp4', 'mp4'],
    ['clip.jpg (a QuickTime movie)', () => isoMedia('qt  ', ['qt  ']), 'video', 'video/quicktime', 'mov'],
    ['clip.jpg (a WebM)', () => webm(), 'video', 'video/webm', 'webm'],
    ['report.jpg (a DOCX)', () => docx(), 'document', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
    ['archive.jpg (a ZIP)', () => zip([['notes.txt', 'hello']]), 'document', 'application/zip', 'zip'],
    ['table.jpg (a CSV)', () => Buffer.from('name,price,"note, with comma"\r\nwidget,1.50,ok\r\ngadget,2.00,"fine"\r\n'), 'document', 'text/csv', 'csv'],
  ];

  it.each(uploads)('%s', async (_name, make, kind, mime, ext) => {
    const body = make();
    const result = await processUpload(body, LIMITS);
    expect(result).toEqual({
      kind,
      mime,
      ext,
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      width: null,
      height: null,
      format: null,
      orientationApplied: false,
      dominantColour: null,
      phash: null,
      blockhash: null,
      lowInformation: null,
      thumbnail: null,
      stored: { body, mime, ext },
      original: null,
    });
  });
});
