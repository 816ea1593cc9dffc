// sharp (libvips) holds about 25 MB of memory once loaded. It is loaded with the first piece of image
// work rather than at start-up, so a service that has handled no image yet does not pay for it
// (bench/hot-path.bench.ts records the idle RSS).
import type Sharp from 'sharp';

export type SharpFactory = typeof Sharp;

let loading: Promise<SharpFactory> | undefined;

export function loadSharp(): Promise<SharpFactory> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
