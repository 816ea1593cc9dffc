// Images made on the fly for tests.
import sharp from 'sharp';

/** A photo-like image: a colour field with a few shapes and some noise, so it compresses like a photo. */
export async function photo(colour: string, options: { width?: number; height?: number; format?: 'jpeg' | 'png' | 'webp'; seed?: number } = {}): Promise<Buffer> {
  const { width = 640, height = 480, format = 'jpeg', seed = 1 } = options;
  const shapes = Array.from({ length: 6 }, (_, i) => {
    const x = ((seed * 97 + i * 131) % width) | 0;
    const y = ((seed * 53 + i * 71) % height) | 0;
    return `<circle cx="${x}" cy="${y}" r="${20 + ((seed + i) % 5) * 8}" fill="rgba(255,255,255,0.25)"/>`;
  }).join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${colour}"/>${shapes}</svg>`);
  return sharp(svg)[format]().toBuffer();
}

/** A multipart body for fetch: fields as text, the file under `file`. */
export function form(file: { body: Buffer; name: string; type?: string } | null, fields: Record<string, string> = {}, fileField = 'file'): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) data.append(fileField, new Blob([new Uint8Array(file.body)], { type: file.type ?? 'application/octet-stream' }), file.name);
  return data;
}
