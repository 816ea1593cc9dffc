// What uploaded bytes are, from their magic numbers (file-type), never from the name or the declared
// type: a supported image format (and the decoder to use), a video, a document, or a refusal. Text
// formats without a magic number (SVG, CSV) are recognised from their first 64 KiB.
import { ImageRejected } from './decode.js';

/** Brands read from a HEIF file's ftyp box; real files list a handful. */
const MAX_BRANDS = 32;

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'tiff' | 'svg' | 'heif';
export interface Sniffed {
  kind: 'image' | 'video' | 'document';
  mime: string;
  ext: string;
  /** For images: the sharp format to decode with. */
  image?: ImageFormat;
}

const IMAGE_TYPES: Record<string, ImageFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/apng': 'png', // sharp decodes the default image; the stored original keeps the animation
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'image/tiff': 'tiff',
  // file-type's names for the HEIF brands (ext heic for all); sequences are decoded by their primary image.
  'image/heic': 'heif',
  'image/heif': 'heif',
  'image/heic-sequence': 'heif',
  'image/heif-sequence': 'heif',
};
const VIDEO_TYPES = new Set(['video/mp4', 'video/x-m4v', 'video/webm', 'video/quicktime']);
const DOCUMENT_TYPE =
  /^application\/(pdf|zip|rtf|x-cfb|msword|vnd\.ms-(excel|powerpoint)|vnd\.openxmlformats-officedocument\.(wordprocessingml\.document|spreadsheetml\.sheet|presentationml\.(presentation|slideshow))|vnd\.oasis\.opendocument\.(text|spreadsheet|presentation))$/;

export async function sniff(body: Buffer): Promise<Sniffed> {
  // file-type (about 30 modules) loads with the first file sniffed, not at start.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(body);
  if (detected) {
    const image = IMAGE_TYPES[detected.mime];
    if (image) return { kind: 'image', mime: detected.mime, ext: detected.ext, image };
    if (VIDEO_TYPES.has(detected.mime)) return { kind: 'video', mime: detected.mime, ext: detected.ext };
    if (DOCUMENT_TYPE.test(detected.mime)) return { kind: 'document', mime: detected.mime, ext: detected.ext };
  }
  // Text formats have no magic number: file-type says nothing (or "xml") for them.
  if (!detected || detected.mime === 'application/xml') {
    const text = decodeUtf8(body.subarray(0, 64 * 1024), body.length > 64 * 1024);
    if (text !== null && isSvg(text)) return { kind: 'image', mime: 'image/svg+xml', ext: 'svg', image: 'svg' };
    if (!detected && text !== null && isCsv(text, body.length > 64 * 1024)) return { kind: 'document', mime: 'text/csv', ext: 'csv' };
    if (!detected) {
      throw new ImageRejected(`not a supported image, video or document (detected ${text !== null ? 'plain text' : 'unknown binary data'})`);
    }
  }
  throw new ImageRejected(`not a supported image, video or document (detected ${detected!.mime})`);
}

/**
 * Whether a HEIF file's brands (major and compatible, from its leading ftyp box, which file-type
 * found) name AVIF and no HEVC brand. libvips cannot tell: it reports the compression from the major
 * brand alone.
 */
export function isAvif(body: Buffer): boolean {
  const end = Math.min(body.readUInt32BE(0), body.length, 16 + 4 * MAX_BRANDS);
  const brands: string[] = [];
  // Major brand at 8, minor version at 12, compatible brands from 16.
  for (let at = 8; at + 4 <= end; at += at === 8 ? 8 : 4) brands.push(body.toString('latin1', at, at + 4));
  return brands.some((brand) => brand === 'avif' || brand === 'avis') && !brands.some((brand) => /^he[iv][cx]$/.test(brand));
}

/** The text, when the bytes are UTF-8 without control characters other than tab, CR and LF. */
function decodeUtf8(bytes: Buffer, truncated: boolean): string | null {
  let end = bytes.length;
  if (truncated) {
    // The prefix may cut a multi-byte character: drop from the last lead byte on.
    for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
      if ((bytes[i]! & 0xc0) !== 0x80) {
        end = bytes[i]! < 0x80 ? i + 1 : i;
        break;
      }
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(text) ? null : text;
}

function isSvg(text: string): boolean {
  const head = text.replace(/^\uFEFF/, '').slice(0, 8192);
  // Prolog (XML declaration, comments, doctype, processing instructions), then the <svg> root.
  return /^\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>|<\?[\s\S]*?\?>)\s*)*<svg[\s>/]/i.test(head);
}

/**
 * At least two comma-, semicolon- or tab-separated rows (of the first 50) with the same number of
 * fields, two or more. Quoted fields spanning lines are not followed: such files are refused.
 */
function isCsv(text: string, truncated: boolean): boolean {
  const body = text.replace(/^\uFEFF/, '');
  if (/^\s*</.test(body)) return false; // markup, not data
  const lines = body.split(/\r\n|\n|\r/);
  if (truncated) lines.pop(); // cut mid-row
  const rows = lines.filter((line) => line.trim() !== '').slice(0, 50);
  if (rows.length < 2) return false;
  return [',', ';', '\t'].some((delimiter) => {
    const counts = rows.map((line) => fieldCount(line, delimiter));
    return counts[0]! >= 2 && counts.every((c) => c === counts[0]);
  });
}

function fieldCount(line: string, delimiter: string): number {
  let fields = 1;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === delimiter && !quoted) fields++;
  }
  return fields;
}
