// Streams a ZIP of any number of entries (a job's files, a media library export) to a writable,
// typically an HTTP response. Entries are opened one at a time, only when the previous one is
// fully written, and the output's back-pressure reaches each entry's source, so memory stays at
// a few stream buffers whether the ZIP holds 10 files or 100,000.
import { type Archiver, type ArchiverOptions } from 'archiver';
import { createRequire } from 'node:module';
import { type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

// archiver 7 is CommonJS exporting one factory function, while @types/archiver 8 describes the
// ESM classes of archiver 8: take the factory through require, keep the instance types. Required
// with the first ZIP: most processes never write one.
type ArchiverFactory = (format: 'zip', options: ArchiverOptions) => Archiver;
let archiverFactory: ArchiverFactory | undefined;
const archiver: ArchiverFactory = (format, options) => (archiverFactory ??= createRequire(import.meta.url)('archiver') as ArchiverFactory)(format, options);

export interface ZipEntry {
  /** The path inside the ZIP; sanitised, and made unique with ` (2)` style suffixes. */
  name: string;
  /** Opens the content; called only when the entry is about to be written. */
  body: () => Promise<Readable>;
  /** Advisory: entries are written with data descriptors, so the size need not be known. */
  size?: number;
  date?: Date;
}

// Formats that are compressed already: deflating them again costs CPU and saves nothing.
const STORED_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'webp', 'gif', 'avif', 'heic', 'heif', 'mp4', 'webm', 'mov', 'zip', 'gz', 'pdf']);

/**
 * Writes the entries as a ZIP to `output` and ends it. If the output fails (the client went away)
 * no further entry is opened, the open one is destroyed, and the promise rejects with that error.
 * If an entry fails, the output is destroyed with the error, so an HTTP client sees a broken
 * download rather than a complete-looking truncated ZIP.
 */
export async function writeZip(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>, output: Writable): Promise<{ entries: number; bytes: number }> {
  const archive = archiver('zip', { zlib: { level: 6 } });
  let failure: unknown;
  // A listener for good: archiver's inner streams may still report errors after a failure.
  archive.on('error', (error: Error) => (failure ??= error));
  const done = pipeline(archive, output);
  const failed = new Promise<never>((_resolve, reject) => {
    done.catch((error: unknown) => reject((failure ??= error)));
  });
  failed.catch(() => undefined); // observed through the races below

  const used = new Set<string>();
  let count = 0;
  try {
    for await (const entry of entries) {
      if (failure !== undefined) break;
      const name = uniqueName(sanitizeEntryName(entry.name), used);
      const opening = entry.body();
      const body = await Promise.race([opening, failed]).catch((error: unknown) => {
        void opening.then((late) => late.destroy(), () => undefined); // opened after the output failed
        throw error;
      });
      try {
        // archiver does not listen for its sources' errors (one would crash the process and the
        // ZIP would wait forever): this listener stays for the life of the body.
        const bodyFailed = new Promise<never>((_resolve, reject) => body.on('error', reject));
        const written = entryWritten(archive);
        archive.append(body, { name, date: entry.date ?? new Date(), store: isStored(name) });
        await Promise.race([written, failed, bodyFailed]);
      } catch (error) {
        body.destroy();
        throw error;
      }
      count++;
    }
    if (failure !== undefined) throw failure;
    await Promise.race([archive.finalize(), failed]);
    await done;
  } catch (error) {
    archive.destroy(error as Error);
    await done.catch(() => undefined);
    throw failure ?? error;
  }
  return { entries: count, bytes: archive.pointer() };
}

/** Resolves when archiver has written the entry appended next (it processes entries in order). */
function entryWritten(archive: Archiver): Promise<void> {
  return new Promise((resolve, reject) => {
    const onEntry = () => {
      archive.off('error', onError);
      resolve();
    };
    const onError = (error: Error) => {
      archive.off('entry', onEntry);
      reject(error);
    };
    archive.once('entry', onEntry);
    archive.once('error', onError);
  });
}

/** A relative path without `.`/`..` segments, drive letters, control or Windows-reserved characters. */
export function sanitizeEntryName(name: string): string {
  const segments = name
    .replace(/^[A-Za-z]:/, '') // a Windows drive, `C:\...`
    .replace(/\\/g, '/')
    .split('/')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .map((segment) => segment.replace(/[\u0000-\u001f\u007f]/g, '').replace(/[<>:"|?*]/g, '_').trim())
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  return segments.join('/') || 'file';
}

/** `a.jpg`, `a (2).jpg`, `a (3).jpg` ...; compared case-insensitively, as Windows and macOS unpack. */
function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  if (used.has(candidate.toLowerCase())) {
    const slash = name.lastIndexOf('/') + 1;
    const dot = name.lastIndexOf('.');
    const [stem, extension] = dot > slash ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${extension}`;
  }
  used.add(candidate.toLowerCase());
  return candidate;
}

function isStored(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot !== -1 && STORED_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}
