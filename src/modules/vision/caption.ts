// Captions built from what a detector found: counted objects, scene labels and whether text was read.
// "An image with 2 people and a dog, with the text 'OPEN'". Used by the local provider and by
// Google Cloud Vision (which labels but does not caption).

export interface CountedObject {
  label: string;
  count: number;
}

export interface CaptionParts {
  /** Objects with how many of each were found, most confident first. */
  objects: CountedObject[];
  /** Scene labels without counts (used when no objects were found). */
  sceneLabels?: string[];
  /** Text read in the image ('' when none). */
  text: string;
}

export const NOTHING_FOUND_CAPTION = 'An image with no recognised objects or text';
const MAX_OBJECT_KINDS = 5;
const MAX_QUOTED_TEXT = 40;

const IRREGULAR_PLURALS: Record<string, string> = {
  person: 'people',
  mouse: 'mice',
  knife: 'knives',
  sheep: 'sheep',
  skis: 'skis',
  scissors: 'scissors',
  man: 'men',
  woman: 'women',
  child: 'children',
  foot: 'feet',
  tooth: 'teeth',
  leaf: 'leaves',
};

export function plural(noun: string): string {
  const words = noun.split(' ');
  const last = words.pop()!;
  const lower = last.toLowerCase();
  let result: string;
  if (IRREGULAR_PLURALS[lower]) result = IRREGULAR_PLURALS[lower];
  else if (/(s|x|z|ch|sh)$/.test(lower)) result = `${last}es`;
  else if (/[^aeiou]y$/.test(lower)) result = `${last.slice(0, -1)}ies`;
  else result = `${last}s`;
  return [...words, result].join(' ');
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** "a dog", "2 people". */
export function countedPhrase({ label, count }: CountedObject): string {
  const noun = label.toLowerCase();
  if (count <= 1) return article(noun);
  return `${count} ${plural(noun)}`;
}

/** "a, b and c". */
export function joinList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The first words of the text on one line, cut at a word boundary. */
export function quoteText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_QUOTED_TEXT) return flat;
  const cut = flat.slice(0, MAX_QUOTED_TEXT);
  const space = cut.lastIndexOf(' ');
  return `${(space > 10 ? cut.slice(0, space) : cut).trim()}...`;
}

export function buildCaption({ objects, sceneLabels = [], text }: CaptionParts): string {
  const quoted = text.trim() ? `the text '${quoteText(text)}'` : '';
  const things = objects
    .filter((o) => o.count > 0)
    .slice(0, MAX_OBJECT_KINDS)
    .map(countedPhrase);
  if (things.length > 0) return `An image with ${joinList(things)}${quoted ? `, with ${quoted}` : ''}`;
  const scene = sceneLabels.map((l) => l.toLowerCase()).slice(0, 3);
  if (scene.length > 0) return `An image showing ${joinList(scene)}${quoted ? `, with ${quoted}` : ''}`;
  if (quoted) return `An image with ${quoted}`;
  return NOTHING_FOUND_CAPTION;
}
