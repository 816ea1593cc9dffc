// Public surface of the image-objects module: the one identity of an image across the service.
export { ImageObjectsService, SAME_OBJECT_MAX_DISTANCE, withinBits, type ImageFingerprint, type Identified, type Neighbour } from './image-objects.service.js';
