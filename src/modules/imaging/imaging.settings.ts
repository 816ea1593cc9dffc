// What configuration says about imaging (src/config.ts reads it): transformation URLs and watermark
// inputs. A leaf file (zod only).
import { z } from 'zod';

/** Transformation URLs (POST /api/media/{id}/optimize): longest output side, renders at once, frames. */
export interface TransformConfig {
  maxDimension: number;
  concurrency: number;
  maxFrames: number;
}

/** Watermark inputs (image and overlay, each): largest download and decoded size. */
export interface WatermarkConfig {
  maxBytes: number;
  maxPixels: number;
}

/** The TRANSFORM_* and WATERMARK_* variables, spread into the configuration's schema. */
export const imagingEnvShape = {
  TRANSFORM_MAX_DIMENSION: z.coerce.number().int().min(16).max(16_384).default(4096).describe('widest `width` optimize accepts, and the longest side (width or height) a transformation serves'),
  TRANSFORM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2).describe('transformations rendered at once by one process (more wait in line)'),
  TRANSFORM_MAX_FRAMES: z.coerce.number().int().min(1).max(10_000).default(200).describe('most frames of an animation a webp transformation keeps (more: the first frame only)'),
  WATERMARK_MAX_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024).describe('largest image or overlay the watermark route downloads (400 beyond)'),
  WATERMARK_MAX_PIXELS: z.coerce.number().int().positive().default(40_000_000).describe('largest image or overlay (width × height) the watermark route decodes (400 beyond)'),
};

type ImagingEnv = z.output<z.ZodObject<typeof imagingEnvShape>>;

export function imagingConfigFrom(e: ImagingEnv): { transform: TransformConfig; watermark: WatermarkConfig } {
  return {
    transform: { maxDimension: e.TRANSFORM_MAX_DIMENSION, concurrency: e.TRANSFORM_CONCURRENCY, maxFrames: e.TRANSFORM_MAX_FRAMES },
    watermark: { maxBytes: e.WATERMARK_MAX_BYTES, maxPixels: e.WATERMARK_MAX_PIXELS },
  };
}
