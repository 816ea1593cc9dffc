// Pure shaping of what the local models saw into a vision result: OCR words filtered by confidence,
// detections de-duplicated and counted, a caption, and a confidence derived from the scores.
import { buildCaption, type CountedObject } from '../caption.js';
import { NOTHING_FOUND_CONFIDENCE, roundConfidence, type ProviderResult, type VisionTask } from '../vision.types.js';

export interface OcrWord {
  text: string;
  /** Tesseract's word confidence, 0 to 100. */
  confidence: number;
}

export interface OcrLine {
  /** Tesseract's line confidence, 0 to 100. */
  confidence: number;
  words: OcrWord[];
}

export interface Detection {
  label: string;
  score: number;
}

/** What a worker thread answers for one image. */
export interface LocalRaw {
  /** Lines of words as tesseract read them (absent when OCR did not run). */
  ocrLines?: OcrLine[];
  /** Object detections (absent when the detector did not run). */
  detections?: Detection[];
  timings: { decodeMs: number; ocrMs?: number; labelsMs?: number };
}

const ALNUM = /[\p{L}\p{N}]/u;
const ALNUM_GLOBAL = /[\p{L}\p{N}]/gu;

/**
 * Keeps lines read at or above minConfidence, and in them the words at or above it that contain a
 * letter or digit; drops lines left with fewer than two letters or digits unless read with near
 * certainty. Photos without text give low-confidence noise, which this removes.
 * Confidence: the kept words' mean confidence weighted by their length, 0 to 1 (null when none).
 */
export function filterOcr(lines: OcrLine[], minConfidence: number): { text: string; confidence: number | null; words: number } {
  const keptLines: string[] = [];
  let weighted = 0;
  let weight = 0;
  let words = 0;
  for (const line of lines) {
    if (line.confidence < minConfidence) continue;
    const kept = line.words.filter((w) => w.confidence >= minConfidence && ALNUM.test(w.text)).map((w) => ({ ...w, text: w.text.trim() }));
    if (kept.length === 0) continue;
    const alnum = kept.reduce((n, w) => n + (w.text.match(ALNUM_GLOBAL)?.length ?? 0), 0);
    if (alnum < 2 && kept.every((w) => w.confidence < 90)) continue;
    keptLines.push(kept.map((w) => w.text).join(' '));
    for (const w of kept) {
      weighted += w.confidence * w.text.length;
      weight += w.text.length;
      words += 1;
    }
  }
  return { text: keptLines.join('\n'), confidence: weight > 0 ? weighted / weight / 100 : null, words };
}

/** Further instances of a reported label are counted down to this share of the threshold. */
export const COUNT_SHARE = 0.75;

/**
 * One entry per label whose best detection reaches minScore, with its best score and how many
 * detections of it score at least COUNT_SHARE x minScore (a crowd's farther faces score lower than
 * its nearest one), most confident first. Weaker labels are left out: the detector sees birds in
 * lettering at 0.37.
 */
export function summariseDetections(detections: Detection[], minScore: number): Array<CountedObject & { score: number }> {
  const byLabel = new Map<string, CountedObject & { score: number }>();
  const countFrom = minScore * COUNT_SHARE;
  for (const d of detections) {
    if (!(d.score >= countFrom) || !d.label) continue;
    const label = d.label.toLowerCase();
    const entry = byLabel.get(label);
    if (entry) {
      entry.count += 1;
      entry.score = Math.max(entry.score, d.score);
    } else byLabel.set(label, { label, count: 1, score: d.score });
  }
  return [...byLabel.values()].filter((e) => e.score >= minScore).sort((a, b) => b.score - a.score);
}

export function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The result for a task. Confidence: the mean of the parts that recognised something (OCR: the kept
 * words' confidence; labels: the mean of each label's best detector score); NOTHING_FOUND_CONFIDENCE
 * when nothing was recognised.
 */
export function localResult(task: VisionTask, raw: LocalRaw, options: { ocrMinConfidence: number; labelMinScore: number }): ProviderResult {
  const ocr = raw.ocrLines ? filterOcr(raw.ocrLines, options.ocrMinConfidence) : { text: '', confidence: null, words: 0 };
  const objects = raw.detections ? summariseDetections(raw.detections, options.labelMinScore) : [];
  const parts: number[] = [];
  if (ocr.confidence !== null) parts.push(ocr.confidence);
  if (task !== 'ocr' && objects.length > 0) parts.push(mean(objects.map((o) => o.score)));
  const confidence = roundConfidence(parts.length > 0 ? mean(parts) : NOTHING_FOUND_CONFIDENCE);
  if (task === 'ocr') return { text: ocr.text, caption: '', labels: [], confidence };
  const caption = buildCaption({ objects, text: ocr.text });
  return { text: task === 'all' ? ocr.text : '', caption, labels: objects.map((o) => o.label), confidence };
}
