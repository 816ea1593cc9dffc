// Public surface of the images module: the image-processing core other modules use (media's
// uploads, community, wiki, search, mirrors, replaceflow, image-objects ...). A lint rule keeps them to it.
// Uploads: what the bytes are, and for images their size, thumbnail, hashes and colour.
export { processUpload, type ProcessedImage, type ProcessLimits } from './process.js';
export { ImageRejected } from './decode.js';
// Perceptual hashes: distance, and the mark of a hash that says next to nothing.
export { hammingDistance } from './hash.js';
export { isDegenerateBlockhash } from './information.js';
// Colour maths, for colour search.
export { hexToLab, parseHexColour } from './colour.js';
// Where a photo was taken (EXIF GPS).
export { gpsOf } from './exif.js';
// Images people share: one image with its hashes, its public file, fetched by URL.
export { fetchImageBytes, fingerprintOf, processSharedImage, publicDerivative, type PublicFile, type SharedImage } from './shared-image.js';
