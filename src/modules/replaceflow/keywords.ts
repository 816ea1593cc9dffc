// The stock fallback's query: the headline's words without stop words, site names and numbers.
//
// Rules: the headline is cut at a site-name separator (" | ", " - ", " — ", " :: ") when the part
// before it is long enough to stand alone; words are letters and digits of any script, lower case;
// English stop words, words of one letter and plain numbers go; the first MAX_KEYWORDS distinct
// words stay, in headline order.
export const MAX_KEYWORDS = 8;

export const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each ' +
    'few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off ' +
    'on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through ' +
    'to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves say says said new news live update updates ' +
    'watch video photos photo pictures breaking latest today report reports exclusive opinion analysis explained how-to vs via amid'
  ).split(' '),
);

export function keywordsOf(headline: string | null): string {
  if (!headline) return '';
  const parts = headline.split(/\s+(?:\||-|–|—|::|·)\s+/);
  const main = parts[0] && parts[0].split(/\s+/).length >= 3 ? parts[0] : headline;
  const words = main.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  const kept: string[] = [];
  for (const raw of words) {
    const word = raw.replace(/['’]s$/u, '');
    if (word.length < 2 || /^\d+$/.test(word) || STOP_WORDS.has(word) || kept.includes(word)) continue;
    kept.push(word);
    if (kept.length === MAX_KEYWORDS) break;
  }
  return kept.join(' ');
}
