// The one parse of a page: the elements the candidate rules read (meta, link, script, img, video,
// the <picture> sources, <base>, <title> and the first <h1>), with their ancestors.
import { Parser } from 'htmlparser2';

/** An element as the rules below read it: its tag, attributes and ancestors. */
export interface Element {
  name: string;
  attribs: Record<string, string>;
  parent: Element | null;
  /** A script's text. */
  text?: string;
  /** A <picture>'s <source> children. */
  sources?: Element[];
}

/** Longest headline kept (the parser reads at most twice as much of a heading). */
export const MAX_HEADLINE = 300;

export interface PageElements {
  /** The first <base href>. */
  base?: Element;
  metas: Element[];
  links: Element[];
  scripts: Element[];
  /** img and amp-img, and video and amp-video with a poster (read as the img it shows before playing). */
  images: Element[];
  /** Text of <title> and of the first <h1> (bounded). */
  title?: string;
  h1?: string;
}

/**
 * One streaming parse (htmlparser2 in HTML mode, the parser cheerio uses, with its implied opening
 * and closing of tags) that keeps only the elements the rules read, in document order, with their
 * ancestors. No document tree is built: a tree of a 100 KB page stays alive while the rules run, and
 * every young-generation GC that falls meanwhile copies it (pauses of about 8 ms, the extractor's
 * p95 in bench/RESULTS.md before this).
 */
export function collectElements(html: string): PageElements {
  const page: PageElements = { metas: [], links: [], scripts: [], images: [] };
  let open: Element | null = null;
  let script: Element | null = null;
  // The <title> or first <h1> whose text is being read.
  let heading: { element: Element; into: 'title' | 'h1' } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const element: Element = { name, attribs, parent: open };
        switch (name) {
          case 'meta':
            page.metas.push(element);
            break;
          case 'link':
            page.links.push(element);
            break;
          case 'script':
            element.text = '';
            page.scripts.push(element);
            script = element;
            break;
          case 'img':
          case 'amp-img':
            page.images.push(element);
            break;
          case 'video':
          case 'amp-video':
            // The poster is the picture; the video file itself (src, data-src) is never a candidate.
            if (attribs.poster?.trim()) page.images.push({ ...element, attribs: { ...attribs, src: attribs.poster } });
            break;
          case 'title':
          case 'h1':
            if (page[name] === undefined && heading === null) {
              page[name] = '';
              heading = { element, into: name };
            }
            break;
          case 'source':
            if (open?.name === 'picture') (open.sources ??= []).push(element);
            break;
          case 'base':
            if (!page.base && attribs.href?.trim()) page.base = element;
            break;
        }
        open = element;
      },
      ontext(text) {
        if (script === open && script) script.text += text;
        if (heading && (page[heading.into]?.length ?? 0) < MAX_HEADLINE * 2) page[heading.into] += text;
      },
      onclosetag() {
        if (script === open) script = null;
        if (heading?.element === open) heading = null;
        open = open?.parent ?? null;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return page;
}
