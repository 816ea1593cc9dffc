// What a person types into the library's search box, turned into the text of a PostgreSQL
// tsquery for to_tsquery('english', ...). The string is built here from words alone, so no input
// can make to_tsquery fail: quotes, & | ! ( ) : * and lone operators are read as described below or
// dropped, never passed on.
//
// Rules (docs/rest-api.md "Media library"):
// - A word is a run of letters and digits; anything else breaks words. Words written together
//   (`IMG_1234`, `sunset-beach`, `"harbour at dusk"`) must appear in that order in the item.
// - A word with inner boundaries (camelCase, letters then digits) also matches its parts, and a
//   word matches the parts of a name written together: `img1234` finds `IMG_1234.jpg`,
//   `SunsetBeach` finds `sunset beach`. The indexed side splits names the same way (the
//   `media_search_words` SQL function, migration 20261123203500_search_words).
// - Words are stemmed in English (`beaches` finds `beach`); English stop words are ignored.
// - `word*` is a prefix. The last word of the query is a prefix too (a search box is typed into),
//   unless it is quoted, excluded or a single character; items that have the whole word rank first.
// - `-word` leaves out items with the word, `or` between words finds either; every other word is
//   required. A query that requires no word finds nothing.

/** A last word shorter than this is matched whole (a one-letter prefix matches most of a library). */
export const MIN_PREFIX_LENGTH = 2;
/** Words beyond these are ignored: more words only narrow a search, and each costs index work. */
export const MAX_TERMS = 16;
export const MAX_WORDS_PER_TERM = 16;
/** A longer word is cut to this length and matched as a prefix (it is one of the cut word). */
export const MAX_WORD_LENGTH = 100;

export interface SearchQuery {
  /** tsquery text: what an item must match. */
  match: string;
  /** The same without the implicit prefix on the last word (null when there is none): ranks whole-word matches first. */
  exact: string | null;
}

interface Word {
  text: string;
  prefix: boolean;
}

interface Term {
  words: Word[];
  negated: boolean;
  quoted: boolean;
}

const WORD = /([\p{L}\p{N}\p{M}]+)(\*?)/gu;
/** Inner boundaries of a word; the SQL side uses the same four. */
const BOUNDARIES: Array<[RegExp, string]> = [
  [/(\p{Ll})(\p{Lu})/gu, '$1 $2'],
  [/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2'],
  [/(\p{L})(\p{N})/gu, '$1 $2'],
  [/(\p{N})(\p{L})/gu, '$1 $2'],
];

/** Null when the query holds no word an item could be required to have. */
export function buildSearchQuery(q: string): SearchQuery | null {
  const tokens = tokenize(q);
  const terms = tokens.filter((t): t is Term => t !== 'or');
  if (!terms.some((t) => !t.negated)) return null;
  const last = terms[terms.length - 1]!;
  const lastWord = last.words[last.words.length - 1]!;
  const implicit = !last.quoted && !last.negated && !lastWord.prefix && [...lastWord.text].length >= MIN_PREFIX_LENGTH;
  const exact = render(tokens);
  if (!implicit) return { match: exact, exact: null };
  lastWord.prefix = true;
  return { match: render(tokens), exact };
}

function tokenize(q: string): Array<Term | 'or'> {
  const tokens: Array<Term | 'or'> = [];
  let terms = 0;
  let i = 0;
  while (i < q.length && terms < MAX_TERMS) {
    if (/\s/u.test(q[i]!)) {
      i++;
      continue;
    }
    const negated = q[i] === '-';
    if (negated) i++;
    let body: string;
    const quoted = q[i] === '"';
    if (quoted) {
      const close = q.indexOf('"', i + 1);
      body = q.slice(i + 1, close < 0 ? q.length : close);
      i = close < 0 ? q.length : close + 1;
    } else {
      const start = i;
      while (i < q.length && q[i] !== '"' && !/\s/u.test(q[i]!)) i++;
      body = q.slice(start, i);
    }
    if (!negated && !quoted && body.toLowerCase() === 'or') {
      tokens.push('or');
      continue;
    }
    const words = wordsOf(body);
    if (words.length === 0) continue;
    tokens.push({ words, negated, quoted });
    terms++;
  }
  return tokens;
}

function wordsOf(text: string): Word[] {
  return [...text.matchAll(WORD)].slice(0, MAX_WORDS_PER_TERM).map(([, word, star]) => {
    const chars = [...word!];
    return chars.length > MAX_WORD_LENGTH ? { text: chars.slice(0, MAX_WORD_LENGTH).join(''), prefix: true } : { text: word!, prefix: star === '*' };
  });
}

/** Terms joined by & (required) or | (`or`); `or` with nothing on one side is ignored. */
function render(tokens: Array<Term | 'or'>): string {
  let out = '';
  let or = false;
  for (const token of tokens) {
    if (token === 'or') {
      or = out !== '';
      continue;
    }
    // An exclusion always narrows: `a or -b` is read as `a -b` (`a | !b` could only be answered by reading every item).
    if (out) out += or && !token.negated ? ' | ' : ' & ';
    or = false;
    const phrase = token.words.map(renderWord).join(' <-> ');
    out += token.negated ? `!(${phrase})` : `(${phrase})`;
  }
  return out;
}

/** 'word', or ('word' | 'part' <-> 'part') when it has inner boundaries. Words hold letters and digits only, so quoting them is safe. */
function renderWord(word: Word): string {
  const star = word.prefix ? ':*' : '';
  const parts = splitWord(word.text);
  if (parts.length === 1) return `'${word.text}'${star}`;
  return `('${word.text}'${star} | ${parts.map((p, i) => `'${p}'${i === parts.length - 1 ? star : ''}`).join(' <-> ')})`;
}

export function splitWord(word: string): string[] {
  let text = word;
  for (const [pattern, replacement] of BOUNDARIES) text = text.replace(pattern, replacement);
  return text.split(' ');
}
