// Public surface of the image-objects module: the one identity of an image across the service, and
// the one rule for "the same image" (sameImage, compareImages) every caller uses.
export {
  ImageObjectsService,
  SAME_OBJECT_MAX_DISTANCE,
  SAME_PHOTO_MAX_PHASH_DISTANCE,
  compareImages,
  isLowInformation,
  sameImage,
  withinBits,
  type Comparison,
  type ImageFingerprint,
  type Identified,
  type Likeness,
  type Neighbour,
  type Probe,
} from './image-objects.service.js';
export { setupImageObjects } from './image-objects.setup.js';
