// Whether what vision saw in an image confirms a tag set (spec: +0.25 coins "when AI verifies the tags
// match the image"). Vision gives labels (the local detector's COCO classes, a provider's labels),
// a caption and OCR words; tags are people's words. Both sides are normalised (lower case, simple
// plural endings dropped) and mapped through a small synonym table onto one canonical word, so
// "puppy" confirms a detected "dog" and "people" a detected "person".
//
// The rule: a tag set is confirmed when at least half of its tags (rounded up) match something vision
// saw. An item is AI-verified once any tag set given to it was confirmed.

/** Groups of words that name the same thing; the first word is the canonical one. */
export const TAG_SYNONYMS: readonly (readonly string[])[] = [
  ['person', 'people', 'man', 'men', 'woman', 'women', 'human', 'child', 'children', 'kid', 'boy', 'girl', 'portrait', 'crowd', 'face'],
  ['dog', 'puppy', 'canine', 'hound'],
  ['cat', 'kitten', 'kitty', 'feline'],
  ['bird', 'gull', 'seagull', 'pigeon', 'sparrow'],
  ['horse', 'pony'],
  ['car', 'automobile', 'vehicle', 'auto', 'sedan'],
  ['truck', 'lorry'],
  ['bicycle', 'bike', 'cycle'],
  ['motorcycle', 'motorbike'],
  ['airplane', 'aeroplane', 'plane', 'aircraft', 'jet'],
  ['boat', 'ship', 'vessel', 'yacht', 'sailboat'],
  ['bus', 'coach'],
  ['train', 'railway', 'locomotive'],
  ['cup', 'mug'],
  ['couch', 'sofa'],
  ['tv', 'television'],
  ['laptop', 'notebook', 'computer'],
  ['cell phone', 'phone', 'smartphone', 'mobile'],
  ['dining table', 'table'],
  ['potted plant', 'plant', 'houseplant'],
  ['sign', 'signage', 'signboard', 'stop sign'],
  ['food', 'meal', 'dish', 'pizza', 'sandwich', 'cake', 'donut'],
];

/** Words every caption template uses: they say nothing about what is in the image. */
const CAPTION_FILLER = new Set(['image', 'photo', 'picture', 'with', 'the', 'and', 'text', 'recognised', 'recognized', 'object', 'showing', 'there', 'this', 'that']);

const canonical = new Map<string, string>();
for (const group of TAG_SYNONYMS) for (const word of group) canonical.set(word, group[0]!);

/** Lower case, single spaces, through the synonym table; a plural ending (ies, es, s) dropped when that makes a known word, else a plain "s". */
export function normaliseWord(word: string): string {
  const text = word.toLowerCase().replace(/[^\p{L}\p{N} ]+/gu, ' ').replace(/\s+/g, ' ').trim();
  if (canonical.has(text)) return canonical.get(text)!;
  for (const [suffix, replacement] of [['ies', 'y'], ['es', ''], ['s', '']] as const) {
    if (text.length > suffix.length + 2 && text.endsWith(suffix)) {
      const singular = text.slice(0, -suffix.length) + replacement;
      if (canonical.has(singular)) return canonical.get(singular)!;
    }
  }
  // Not a known word: only the plain "s" goes ("boats"), never "ss" ("glass").
  return text.length > 3 && text.endsWith('s') && !text.endsWith('ss') ? text.slice(0, -1) : text;
}

export interface Seen {
  labels: readonly string[];
  /** OCR words (any case). */
  words: readonly string[];
  caption?: string | null;
}

export interface Confirmation {
  /** Tags that matched something vision saw. */
  matched: string[];
  confirmed: boolean;
}

/** What vision saw as a set of normalised words (labels, OCR words, caption words). */
export function seenWords(seen: Seen): Set<string> {
  const words = new Set<string>();
  for (const label of seen.labels) {
    words.add(normaliseWord(label));
    for (const part of label.split(/\s+/)) words.add(normaliseWord(part));
  }
  for (const word of seen.words) words.add(normaliseWord(word));
  for (const word of (seen.caption ?? '').split(/[^\p{L}\p{N}]+/u)) {
    const normal = normaliseWord(word);
    if (normal.length > 2 && !CAPTION_FILLER.has(normal)) words.add(normal);
  }
  words.delete('');
  return words;
}

export function confirmTags(tags: readonly string[], seen: Seen): Confirmation {
  const words = seenWords(seen);
  const matched = tags.filter((tag) => words.has(normaliseWord(tag)));
  return { matched, confirmed: tags.length > 0 && matched.length >= Math.ceil(tags.length / 2) };
}

/** OCR text as the words tags are matched with (2 letters or more, lower case, unique). */
export function ocrWords(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 2))].slice(0, 200);
}
