// Where a photo was taken, from its EXIF GPS tags, for JPEG, HEIC/HEIF/AVIF, PNG (eXIf) and WebP
// (EXIF chunk). Uploads are hostile input: anything missing, malformed or out of range is null,
// never an error.
//
// Bounded time: ExifReader walks a whole container and every count an IFD declares, so crafted files
// cost it time in proportion to their size (about 2 s for a 25 MB PNG of empty chunks, 0.6 s for a
// GPS tag claiming millions of values). So the EXIF block is located here first, by a walk over the
// container's chunk, segment or box headers that allocates nothing, and ExifReader only parses that
// block (a TIFF structure), cut to MAX_EXIF_BYTES.

export interface GpsPosition {
  /** Decimal degrees, negative south of the equator. */
  latitude: number;
  /** Decimal degrees, negative west of Greenwich. */
  longitude: number;
}

/** Real EXIF blocks are a few kilobytes (a JPEG APP1 segment cannot exceed 64 KiB). */
const MAX_EXIF_BYTES = 256 * 1024;
/**
 * Headers (chunks, segments, fill bytes, boxes) walked in one container before giving up: real files
 * have far fewer (a 25 MB PNG cut into 8 KiB IDAT chunks has 3,200), crafted ones millions.
 */
const MAX_HEADERS = 100_000;
/** HEIF's meta box (item info and locations) is tens of kilobytes even for tiled 48-megapixel photos. */
const MAX_META_BYTES = 1024 * 1024;
const EXIF_PREFIX = Buffer.from('Exif\0\0', 'latin1');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A four-character code as the number its bytes read big-endian, so headers are compared without making strings. */
function fourcc(name: string): number {
  return Buffer.from(name, 'latin1').readUInt32BE(0);
}
const RIFF = fourcc('RIFF');
const WEBP = fourcc('WEBP');
const FTYP = fourcc('ftyp');
const PNG_EXIF = fourcc('eXIf');
const RIFF_EXIF = fourcc('EXIF');
const HEIF_EXIF = fourcc('Exif');

export async function gpsOf(bytes: Buffer): Promise<GpsPosition | null> {
  let latitude: number | undefined;
  let longitude: number | undefined;
  try {
    const tiff = exifBlock(bytes);
    if (!tiff) return null;
    // Loaded with the first photo that carries EXIF, not at every start.
    const { default: ExifReader } = await import('exifreader');
    // A copy of exactly the block: ExifReader reads an ArrayBuffer from its start.
    const block = new Uint8Array(tiff.subarray(0, MAX_EXIF_BYTES)).buffer;
    // `gps` is ExifReader's position computed from the GPS IFD, signs taken from the N/S and E/W refs.
    ({ Latitude: latitude, Longitude: longitude } = ExifReader.load(block, { expanded: true, includeTags: { gps: true } }).gps ?? {});
  } catch {
    return null;
  }
  if (!isCoordinate(latitude, 90) || !isCoordinate(longitude, 180)) return null;
  return { latitude, longitude };
}

function isCoordinate(value: unknown, limit: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;
}

/** The EXIF TIFF structure inside the file (from its "II*\0" or "MM\0*" header), or null. */
function exifBlock(bytes: Buffer): Buffer | null {
  let block: Buffer | null = null;
  if (bytes.length < 12) return null;
  if (bytes[0] === 0xff && bytes[1] === 0xd8) block = jpegExif(bytes);
  else if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) block = chunk(bytes, 8, PNG_EXIF, 'png');
  else if (bytes.readUInt32BE(0) === RIFF && bytes.readUInt32BE(8) === WEBP) block = chunk(bytes, 12, RIFF_EXIF, 'riff');
  else if (bytes.readUInt32BE(4) === FTYP) block = heifExif(bytes);
  // Several writers put JPEG's "Exif\0\0" marker before the TIFF header in PNG and WebP too.
  if (block && block.subarray(0, 6).equals(EXIF_PREFIX)) block = block.subarray(6);
  if (!block || block.length < 8) return null;
  const order = block.toString('latin1', 0, 4);
  return order === 'II*\0' || order === 'MM\0*' ? block : null;
}

/** The APP1 segment that starts with "Exif\0\0", looked for up to the start of the scan data. */
function jpegExif(bytes: Buffer): Buffer | null {
  let at = 2;
  for (let step = 0; step < MAX_HEADERS && at + 4 <= bytes.length; step++) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null; // start of scan, end of image
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2) return null;
    const payload = bytes.subarray(at + 4, at + 2 + length);
    if (marker === 0xe1 && payload.subarray(0, 6).equals(EXIF_PREFIX)) return payload;
    at += 2 + length;
  }
  return null;
}

/**
 * The payload of the first chunk of that type: PNG chunks are length (big-endian), type, data, CRC;
 * RIFF chunks are type, length (little-endian), data padded to an even length.
 */
function chunk(bytes: Buffer, start: number, type: number, container: 'png' | 'riff'): Buffer | null {
  const png = container === 'png';
  for (let at = start, step = 0; step < MAX_HEADERS && at + 8 <= bytes.length; step++) {
    const size = png ? bytes.readUInt32BE(at) : bytes.readUInt32LE(at + 4);
    const dataAt = at + 8;
    if (bytes.readUInt32BE(png ? at + 4 : at) === type) return bytes.subarray(dataAt, dataAt + size);
    at = dataAt + size + (png ? 4 : size % 2);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// HEIF (HEIC, AVIF): the Exif item, found through the meta box's item info (iinf) and locations (iloc)

/** Where a box's content starts (after its header) and ends. */
interface Box {
  start: number;
  end: number;
}

/** The first box of that type between `from` and `to` (siblings only, not descending). */
function box(bytes: Buffer, from: number, to: number, name: string): Box | null {
  const type = fourcc(name);
  for (let at = from, step = 0; step < MAX_HEADERS && at + 8 <= to; step++) {
    let size = bytes.readUInt32BE(at);
    let start = at + 8;
    if (size === 1) {
      if (at + 16 > to) return null;
      size = Number(bytes.readBigUInt64BE(at + 8));
      start = at + 16;
    } else if (size === 0) size = to - at; // to the end
    if (size < start - at || at + size > to) return null;
    if (bytes.readUInt32BE(at + 4) === type) return { start, end: at + size };
    at += size;
  }
  return null;
}

/** Reads an unsigned big-endian integer of 0, 2, 4 or 8 bytes (ISO BMFF field sizes); null past `end` or beyond 2^53. */
function uint(bytes: Buffer, at: number, size: number, end: number): number | null {
  if (at + size > end) return null;
  if (size === 0) return 0;
  if (size === 2) return bytes.readUInt16BE(at);
  if (size === 4) return bytes.readUInt32BE(at);
  if (size === 8) {
    const value = bytes.readBigUInt64BE(at);
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
  }
  return null;
}

function heifExif(bytes: Buffer): Buffer | null {
  const meta = box(bytes, 0, bytes.length, 'meta');
  // The loops over its item entries are bounded by its size.
  if (!meta || meta.end - meta.start > MAX_META_BYTES) return null;
  // meta, iinf and iloc are full boxes: one byte of version and three of flags come first.
  const childrenAt = meta.start + 4;
  const iinf = box(bytes, childrenAt, meta.end, 'iinf');
  const iloc = box(bytes, childrenAt, meta.end, 'iloc');
  if (!iinf || !iloc) return null;
  const id = exifItemId(bytes, iinf);
  if (id === null) return null;
  const item = itemBytes(bytes, iloc, id, box(bytes, childrenAt, meta.end, 'idat'));
  // The item starts with the offset of the TIFF header within the rest of it.
  if (!item || item.length < 4) return null;
  return item.subarray(4 + item.readUInt32BE(0));
}

function exifItemId(bytes: Buffer, iinf: Box): number | null {
  let at = iinf.start + 4 + (bytes[iinf.start] === 0 ? 2 : 4); // entry count
  while (at < iinf.end) {
    const infe = box(bytes, at, iinf.end, 'infe');
    if (!infe) return null;
    // Item info entries of versions 2 and 3 (the ones HEIF uses): item id, protection index, item type.
    const version = bytes[infe.start]!;
    const idSize = version === 2 ? 2 : 4;
    const typeAt = infe.start + 4 + idSize + 2;
    if (version >= 2 && typeAt + 4 <= infe.end && bytes.readUInt32BE(typeAt) === HEIF_EXIF) return uint(bytes, infe.start + 4, idSize, infe.end);
    at = infe.end;
  }
  return null;
}

/** The item's bytes, its extents joined, when they lie in the file (construction 0) or in idat (1). */
function itemBytes(bytes: Buffer, iloc: Box, id: number, idat: Box | null): Buffer | null {
  const { end } = iloc;
  const version = bytes[iloc.start]!;
  if (iloc.start + 8 > end || version > 2) return null;
  const offsetSize = bytes[iloc.start + 4]! >> 4;
  const lengthSize = bytes[iloc.start + 4]! & 0x0f;
  const baseOffsetSize = bytes[iloc.start + 5]! >> 4;
  const indexSize = version > 0 ? bytes[iloc.start + 5]! & 0x0f : 0;
  // Every extent must take up bytes, or a count of 65,535 empty extents per item would cost time for nothing.
  if (offsetSize + lengthSize === 0) return null;
  const idSize = version < 2 ? 2 : 4;
  let at = iloc.start + 6;
  const itemCount = uint(bytes, at, idSize, end);
  at += idSize;
  for (let i = 0; itemCount !== null && i < itemCount; i++) {
    const itemId = uint(bytes, at, idSize, end);
    at += idSize;
    const construction = version > 0 ? uint(bytes, at, 2, end) : 0;
    at += version > 0 ? 2 : 0;
    at += 2; // data reference index
    const base = uint(bytes, at, baseOffsetSize, end);
    at += baseOffsetSize;
    const extentCount = uint(bytes, at, 2, end);
    at += 2;
    if (itemId === null || construction === null || base === null || extentCount === null) return null;
    const parts: Buffer[] = [];
    for (let e = 0; e < extentCount; e++) {
      at += indexSize;
      const offset = uint(bytes, at, offsetSize, end);
      const length = uint(bytes, at + offsetSize, lengthSize, end);
      at += offsetSize + lengthSize;
      if (offset === null || length === null) return null;
      if (itemId !== id) continue;
      const method = construction & 0x0f;
      const origin = method === 0 ? 0 : method === 1 && idat ? idat.start : null;
      const from = origin === null ? null : origin + base + offset;
      const limit = method === 0 ? bytes.length : (idat?.end ?? 0);
      // Length 0 means "to the end"; an item in another item (construction 2) is not followed.
      if (from === null || from > limit) return null;
      parts.push(bytes.subarray(from, length === 0 ? limit : Math.min(limit, from + length)));
    }
    if (itemId === id) {
      // Joined only as far as the block that gets parsed.
      const joined = parts.reduce((sum, part) => sum + part.length, 0);
      return Buffer.concat(parts, Math.min(joined, MAX_EXIF_BYTES));
    }
  }
  return null;
}
