// Runs in a piscina worker thread (heic.decoder.ts), never on the main thread: decodes the primary
// image of a HEIC/HEIF file to 8-bit RGB(A) with libheif compiled to WebAssembly (libheif-js).
// libheif applies the file's own transforms (rotation, mirroring, clean-aperture crop), so the
// pixels come upright. Each thread instantiates the module on its first task and keeps it until the
// pool retires the idle thread, which also gives back the module's memory.
import { createRequire } from 'node:module';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { MainModule } from 'libheif-js/libheif-wasm/libheif.js';

export interface HeicTask {
  body: Uint8Array;
  maxPixels: number;
}

export type HeicAnswer =
  | { ok: true; width: number; height: number; channels: 3 | 4; data: Uint8Array }
  | { ok: false; reason: string }
  | { ok: false; tooManyPixels: { width: number; height: number } };

/** libheif's error record, which the JS bindings also answer in place of a handle or an image. */
type HeifError = { code: { value: number }; message: unknown };
/** The interleaved plane of a decoded image (heif_js_decode_image2's answer). */
interface DecodedImage {
  image: Parameters<MainModule['heif_image_release']>[0];
  channels: Array<{ id: { value: number }; width: number; height: number; stride: number; data: Uint8Array }>;
}

// The bundle carries the .wasm inside it (no file to locate at run time); its default export makes
// a fresh module instance.
const createModule = createRequire(import.meta.url)('libheif-js/libheif-wasm/libheif-bundle.js') as () => MainModule | Promise<MainModule>;
let instance: MainModule | undefined;

export default async function decodeHeic({ body, maxPixels }: HeicTask): Promise<HeicAnswer> {
  instance ??= await createModule();
  try {
    return await decodePrimary(instance, body, maxPixels);
  } catch (error) {
    // A trap leaves the WebAssembly instance in an unknown state: the next task gets a new one.
    instance = undefined;
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

async function decodePrimary(heif: MainModule, body: Uint8Array, maxPixels: number): Promise<HeicAnswer> {
  const context = heif.heif_context_alloc();
  try {
    const read = heif.heif_context_read_from_memory(context, body);
    if (read.code.value !== heif.heif_error_code.heif_error_Ok.value) return failed(read);
    const handle: unknown = heif.heif_js_context_get_primary_image_handle(context);
    if (isHeifError(handle)) return failed(handle);
    const primary = handle as Parameters<MainModule['heif_image_handle_release']>[0];
    try {
      // The handle's size is read from the container, before any pixel is decoded.
      const width = heif.heif_image_handle_get_width(primary);
      const height = heif.heif_image_handle_get_height(primary);
      if (width * height > maxPixels) return { ok: false, tooManyPixels: { width, height } };
      const alpha = heif.heif_image_handle_has_alpha_channel(primary) !== 0;
      const chroma = alpha ? heif.heif_chroma.heif_chroma_interleaved_RGBA : heif.heif_chroma.heif_chroma_interleaved_RGB;
      const decoded: unknown = await heif.heif_js_decode_image2(primary, heif.heif_colorspace.heif_colorspace_RGB, chroma);
      if (isHeifError(decoded)) return failed(decoded);
      if (!decoded) return failed(null);
      return interleaved(heif, decoded as DecodedImage, alpha ? 4 : 3);
    } finally {
      heif.heif_image_handle_release(primary);
    }
  } finally {
    heif.heif_context_free(context);
  }
}

/** Copies the plane out of the WebAssembly memory row by row (rows may be padded), then frees it. */
function interleaved(heif: MainModule, decoded: DecodedImage, channels: 3 | 4): HeicAnswer {
  try {
    const plane = decoded.channels.find((c) => c.id.value === heif.heif_channel.heif_channel_interleaved.value);
    if (!plane) return { ok: false, reason: 'the decoder returned no interleaved plane' };
    const { width, height, stride } = plane;
    const rowBytes = width * channels;
    const data = new Uint8Array(rowBytes * height);
    for (let y = 0; y < height; y++) data.set(plane.data.subarray(y * stride, y * stride + rowBytes), y * rowBytes);
    const answer: HeicAnswer = { ok: true, width, height, channels, data };
    // The pixels move to the main thread instead of being cloned.
    return move({ [transferableSymbol]: [data.buffer], [valueSymbol]: answer }) as unknown as HeicAnswer;
  } finally {
    heif.heif_image_release(decoded.image);
  }
}

function isHeifError(value: unknown): value is HeifError {
  return typeof value === 'object' && value !== null && 'code' in value && 'message' in value;
}

function failed(error: HeifError | null): HeicAnswer {
  return { ok: false, reason: error ? String(error.message).trim() || 'corrupt data' : 'the decoder returned nothing' };
}
