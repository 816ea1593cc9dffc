// sharp (libvips) holds about 25 MB of memory once loaded. It is loaded with the first piece of image
// work rather than at start-up, so a service that has handled no image yet does not pay for it
// (bench/hot-path.bench.ts records the idle RSS).
//
// libvips' operation cache is turned off: it keeps up to 50 MB of recent results and 20 open files
// for a repeat of the same operation on the same input, which a service that sees each upload once
// never asks for, and that memory stayed after a session of uploads (bench/memory.bench.ts).
// sharp's own thread limit stays: on glibc without jemalloc it already runs one libvips thread per
// image, against malloc fragmentation.
import type Sharp from 'sharp';

export type SharpFactory = typeof Sharp;

let loading: Promise<SharpFactory> | undefined;

export function loadSharp(): Promise<SharpFactory> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return loading;
}
