// The filename a served file carries (Content-Disposition): the name people gave the item, with the
// extension of the bytes actually served. A JPEG thumbnail of "Phone photo.heic" downloads as
// "Phone photo.jpg", not as an extensionless or wrongly labelled file. Formatting (quoting,
// non-ASCII names as RFC 6266 filename*) is the content-disposition package's.
import { create as contentDisposition } from 'content-disposition';
import { extension, extensions, lookup } from 'mime-types';

export function fileNameFor(name: string, contentType: string): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const wanted = extensions[type];
  if (!wanted) return name;
  const dot = name.lastIndexOf('.');
  const current = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if (wanted.includes(current)) return name;
  // Another type's extension is replaced; anything else after a dot ("v2.final") is part of the name.
  const stem = current && lookup(current) ? name.slice(0, dot) : name;
  return `${stem}.${extension(type)}`;
}

/** The header for a file served under `name`, typed `contentType`. */
export function dispositionHeader(type: 'inline' | 'attachment', name: string, contentType: string): string {
  // Control characters could split or end the header line: they are dropped.
  const printable = Array.from(name).filter((c) => c > '\u001f' && c !== '\u007f').join('').trim();
  return contentDisposition(fileNameFor(printable || 'file', contentType), { type });
}
