// Spec "Vision": POST /api/vision/analyze, and the legacy POST /api/ocr (spec "Versioning"), both
// as JSON (image_data, base64) or multipart (image_file; the legacy route also takes `file`);
// declared in src/modules/vision/vision.operations.ts.
import { restRoutesOf } from '../derive.js';
import { visionOperations } from '../../src/modules/vision/vision.operations.js';

export const visionRoutes = restRoutesOf(visionOperations);
