// What a URL or a fetched body is: image, video, document, or something else (a page). The bytes
// decide (magic numbers via file-type); names and Content-Type only guess.
import { extname } from 'node:path';

export type ResourceKind = 'image' | 'video' | 'document' | 'unknown';

const IMAGE_EXT = new Set(['.jpg', '.jpeg', '.png', '.gif', '.webp', '.avif', '.bmp', '.tif', '.tiff', '.svg', '.ico', '.heic', '.heif', '.jxl']);
const VIDEO_EXT = new Set(['.mp4', '.webm', '.mov', '.m4v', '.mkv', '.avi', '.ogv', '.mpeg', '.mpg']);
const DOCUMENT_EXT = new Set(['.pdf', '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.odp', '.rtf', '.epub', '.zip', '.rar', '.7z', '.tar', '.gz', '.csv']);

const DOCUMENT_MIME = /^application\/(pdf|zip|x-rar-compressed|vnd\.rar|x-7z-compressed|gzip|x-tar|epub\+zip|msword|rtf|x-cfb|vnd\.(ms-|openxmlformats-officedocument|oasis\.opendocument))/;

export function kindFromExtension(url: string): ResourceKind {
  let ext: string;
  try {
    ext = extname(new URL(url).pathname).toLowerCase();
  } catch {
    return 'unknown';
  }
  if (IMAGE_EXT.has(ext)) return 'image';
  if (VIDEO_EXT.has(ext)) return 'video';
  if (DOCUMENT_EXT.has(ext)) return 'document';
  return 'unknown';
}

export interface SniffedType {
  kind: ResourceKind;
  mime: string;
  ext: string;
}

/** Decides from the bytes; SVG and CSV are text, so those two also look at the declared type. */
export async function sniffType(body: Buffer, declaredContentType: string | null, url: string): Promise<SniffedType> {
  // file-type (about 30 modules) loads with the first file sniffed, not at start.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(body.subarray(0, 4100));
  if (detected) {
    const kind: ResourceKind = detected.mime.startsWith('image/')
      ? 'image'
      : detected.mime.startsWith('video/') || detected.mime === 'application/mp4'
        ? 'video'
        : DOCUMENT_MIME.test(detected.mime)
          ? 'document'
          : 'unknown';
    return { kind, mime: detected.mime, ext: detected.ext };
  }
  const declared = declaredContentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const head = body.subarray(0, 1024).toString('utf8').trimStart().toLowerCase();
  if ((declared === 'image/svg+xml' || kindFromExtension(url) === 'image' || head.startsWith('<?xml')) && /<svg[\s>]/.test(head)) {
    return { kind: 'image', mime: 'image/svg+xml', ext: 'svg' };
  }
  if (declared === 'text/csv' || (kindFromExtension(url) === 'document' && extname(new URL(url).pathname).toLowerCase() === '.csv')) {
    return { kind: 'document', mime: 'text/csv', ext: 'csv' };
  }
  return { kind: 'unknown', mime: declared || 'application/octet-stream', ext: 'bin' };
}

/** A safe file name from the URL's last path segment, with the extension the bytes call for. */
export function filenameFor(url: string, ext: string): string {
  let stem = 'file';
  try {
    const last = decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
    stem = last.replace(/\.[A-Za-z0-9]{1,5}$/, '') || stem;
  } catch {
    // keep the default stem
  }
  stem = stem.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 80) || 'file';
  return `${stem}.${ext}`;
}
