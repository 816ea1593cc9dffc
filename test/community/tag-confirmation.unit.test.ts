// The per-tag rule that turns what vision saw into confirmed tags, each with its evidence (docs/rest-api.md
// "Community": vision confirmation), and the keys subjects are compared by.
import { describe, expect, it } from 'vitest';
import { confirmTags, normaliseWord, ocrWords, showsPicture, subjectKey, subjectKeys } from '../../src/modules/community/tag-confirmation.js';

const tagsOf = (confirmed: ReturnType<typeof confirmTags>) => confirmed.map((c) => c.tag);

describe('tag confirmation', () => {
  it('maps synonyms and plurals onto one word', () => {
    expect(normaliseWord('Puppies')).toBe('dog');
    expect(normaliseWord('people')).toBe('person');
    expect(normaliseWord('Boats')).toBe('boat');
    expect(normaliseWord('glass')).toBe('glass');
    expect(normaliseWord('Cell Phone')).toBe('cell phone');
    expect(normaliseWord('smartphone')).toBe('cell phone');
  });

  it('confirms each tag on its own evidence, never a set by the share of its tags that matched', () => {
    const seen = { labels: ['person', 'dog'], words: ['harbor', 'open'], caption: 'An image with 2 people and a dog, with the text HARBOR' };
    expect(confirmTags(['puppy'], seen)).toEqual([{ tag: 'puppy', key: 'dog', evidence: 'label', matched: 'dog' }]);
    // Half of the set matched: only the tag that matched is confirmed.
    expect(tagsOf(confirmTags(['women', 'sunset'], seen))).toEqual(['women']);
    expect(confirmTags(['harbor', 'sunset', 'beach'], seen)).toEqual([{ tag: 'harbor', key: 'harbor', evidence: 'text', matched: 'harbor' }]);
    expect(confirmTags(['cat'], seen)).toEqual([]);
    expect(confirmTags([], seen)).toEqual([]);
  });

  it('counts a word read in the image as text, also when the caption or a model names it', () => {
    // The local caption quotes the text it read: "castle" there is still only text.
    const castleWord = { labels: ['text'], words: ['castle'], caption: "An image with the text 'CASTLE'" };
    const judged = confirmTags(['castle', 'sphinx'], castleWord, ['castle']);
    expect(judged).toEqual([{ tag: 'castle', key: 'castle', evidence: 'text', matched: 'castle' }]);
    expect(judged.some(showsPicture)).toBe(false);
    // A label of the same thing is what vision saw: it shows the subject.
    const photo = { labels: ['castle'], words: ['castle'], caption: null };
    expect(confirmTags(['castle'], photo)[0]).toMatchObject({ evidence: 'label' });
    expect(confirmTags(['castle'], photo).some(showsPicture)).toBe(true);
  });

  it("takes a model's judgement and caption words as evidence that shows the picture", () => {
    const seen = { labels: [], words: [], caption: 'A stone castle on a hill above the Eiffel Tower' };
    expect(confirmTags(['fortress', 'Castle'], seen, ['FORTRESS'])).toEqual([
      { tag: 'fortress', key: 'fortress', evidence: 'model', matched: 'fortress' },
      { tag: 'Castle', key: 'castle', evidence: 'caption', matched: 'castle' },
    ]);
    expect(confirmTags(['eiffel tower'], seen)).toEqual([{ tag: 'eiffel tower', key: 'eiffel-tower', evidence: 'caption', matched: 'eiffel tower' }]);
    expect(confirmTags(['tower eiffel'], seen)).toEqual([]);
    expect(confirmTags(['fortress'], seen, null)).toEqual([]);
  });

  it('confirms a tag by a whole label, never by a word inside a label: a hot dog is no dog', () => {
    const seen = { labels: ['hot dog', 'teddy bear', 'cell phone'], words: [], caption: 'An image with a hot dog and a teddy bear' };
    const confirmed = confirmTags(['dog', 'bear', 'hot', 'hot dog', 'teddy bear', 'phone'], seen);
    expect(confirmed.map((c) => [c.tag, c.evidence])).toEqual([
      ['hot dog', 'label'],
      ['teddy bear', 'label'],
      ['phone', 'label'],
    ]);
    // A caption word that is no part of a label's phrase still counts.
    expect(confirmTags(['dog'], { labels: ['hot dog'], words: [], caption: 'a dog begs for a hot dog' }).map((c) => c.evidence)).toEqual(['caption']);
  });

  it('does not count the words every caption template uses', () => {
    const seen = { labels: [], words: [], caption: "An image with the text 'OPEN'" };
    expect(confirmTags(['image'], seen)).toEqual([]);
    expect(confirmTags(['text'], seen)).toEqual([]);
    expect(confirmTags(['open'], seen)).toMatchObject([{ evidence: 'caption' }]);
  });

  it('keys tags and subjects alike: case, hyphens, plurals and synonyms', () => {
    expect(subjectKey('Eiffel-Tower')).toBe('eiffel-tower');
    expect(subjectKey('eiffel tower')).toBe('eiffel-tower');
    expect(subjectKey('Puppies')).toBe('dog');
    expect(subjectKey('Castles')).toBe('castle');
    expect(subjectKeys('red-bridge', 'Red Bridge')).toEqual(['red-bridge']);
    expect(subjectKeys('dogs', 'Dogs')).toEqual(['dog', 'dogs']);
  });

  it('reads OCR text as unique lower-case words of two letters or more', () => {
    expect(ocrWords('OPEN daily\nOpen 24/7 - a B')).toEqual(['open', 'daily', '24']);
  });
});
