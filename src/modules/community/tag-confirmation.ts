// Whether what vision saw in an image confirms a tag (spec: +0.25 coins "when AI verifies the tags
// match the image"). Vision gives labels (the local detector's COCO classes, a provider's labels),
// a caption, OCR words and, with a model provider, the model's judgement of the tags; tags are
// people's words. Both sides are normalised (lower case, simple plural endings dropped) and mapped
// through a small synonym table onto one canonical word, so "puppy" confirms a detected "dog" and
// "people" a detected "person".
//
// The rule is per tag: a tag is confirmed when the evidence names THAT tag, and the evidence is kept
// with it (CommunityTagConfirmation). Evidence, strongest first:
//   label    a vision label names the tag;
//   text     the tag is a word read in the image (OCR). A model or a caption naming such a word may be
//            reading the same letters (the local caption quotes the text), so it counts as text too;
//   model    a model provider's judgement names the tag;
//   caption  a caption word names the tag.
// Text alone does not show a subject (an image of the word "CASTLE" is not a photo of a castle): it
// verifies the tag for the tagging bonus, never for a bounty claim or an atlas subject
// (SUBJECT_EVIDENCE, subject-evidence.ts).

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

export const TAG_EVIDENCE = ['label', 'text', 'model', 'caption'] as const;
export type TagEvidence = (typeof TAG_EVIDENCE)[number];
/** Evidence that shows what is in the picture: everything but text read in it. */
export const SUBJECT_EVIDENCE: readonly TagEvidence[] = ['label', 'model', 'caption'];

/** A tag vision confirmed, with what confirmed it. */
export interface TagConfirmation {
  tag: string;
  /** subjectKey(tag): what subjects and atlas words are compared with. */
  key: string;
  evidence: TagEvidence;
  /** The label, word, judgement or caption phrase that matched. */
  matched: string;
}

/** Words of a text, normalised, in order (for phrases: "eiffel tower" in a caption). */
function phraseOf(text: string): string {
  return text
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => normaliseWord(word))
    .join(' ');
}

/** A tag as a slug: NFKC, lower case, runs of anything but letters and digits as one hyphen, at most 80 characters. */
export function slugify(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}

/** The key a tag or a subject is compared by: its normalised word (synonyms, plural) as a slug. "Puppies" -> dog, "Eiffel-Tower" -> eiffel-tower. */
export function subjectKey(text: string): string {
  return slugify(normaliseWord(text.normalize('NFKC').replace(/-/g, ' ')));
}

/** The keys a subject (a bounty's slug and name, an atlas word) is found by: its subject keys and its plain slugs (wiki subjects are found by slug). */
export function subjectKeys(...names: string[]): string[] {
  return [...new Set(names.flatMap((name) => [subjectKey(name), slugify(name)]).filter(Boolean))];
}

/**
 * The tags of a set that vision confirms, each with its strongest evidence (order at the top of
 * this file). `judged`: the tags a model provider said describe the image (null: no judgement).
 */
export function confirmTags(tags: readonly string[], seen: Seen, judged: readonly string[] | null = null): TagConfirmation[] {
  // A label confirms the tag it names as a whole (through the synonym table: "cell phone" is a
  // phone), never the words inside it: a "hot dog" is no dog, a "teddy bear" no bear.
  const labels = new Map(seen.labels.map((label) => [normaliseWord(label), label]));
  const ocr = new Set(seen.words.map((word) => normaliseWord(word)));
  const model = new Set((judged ?? []).map((word) => normaliseWord(word)));
  let caption = ` ${(seen.caption ?? '')
    .split(/[^\p{L}\p{N}]+/u)
    .map((word) => normaliseWord(word))
    .filter((word) => word.length > 2 && !CAPTION_FILLER.has(word))
    .join(' ')} `;
  // The same in the caption: a label's phrase there is one word, whose parts confirm nothing alone.
  for (const label of seen.labels) {
    const phrase = phraseOf(label);
    if (phrase.includes(' ')) caption = caption.replaceAll(` ${phrase} `, ` ${phrase.replaceAll(' ', '_')} `);
  }
  const confirmed: TagConfirmation[] = [];
  for (const tag of new Set(tags)) {
    const normal = normaliseWord(tag);
    if (!normal) continue;
    const parts = phraseOf(tag).split(' ');
    const read = ocr.has(normal) || (parts.length > 1 && parts.every((part) => ocr.has(part)));
    const inCaption = caption.includes(` ${normal} `) || (parts.length > 1 && caption.includes(` ${parts.join(' ')} `));
    const evidence: [TagEvidence, string] | null = labels.has(normal)
      ? ['label', labels.get(normal)!]
      : read
        ? ['text', normal]
        : model.has(normal)
          ? ['model', normal]
          : inCaption
            ? ['caption', normal]
            : null;
    if (evidence) confirmed.push({ tag, key: subjectKey(tag), evidence: evidence[0], matched: evidence[1] });
  }
  return confirmed;
}

/** Whether a confirmation shows its subject (not text alone). */
export function showsPicture(confirmation: Pick<TagConfirmation, 'evidence'>): boolean {
  return SUBJECT_EVIDENCE.includes(confirmation.evidence);
}

/** OCR text as the words tags are matched with (2 letters or more, lower case, unique). */
export function ocrWords(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 2))].slice(0, 200);
}
