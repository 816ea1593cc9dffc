// Every link between the README and the docs/ pages leads somewhere: the file exists and, when the
// link names a heading (`economy.md#economy-bounties`), the page has that heading (GitHub's anchors,
// made by github-slugger as GitHub makes them). Content moved between pages must take its links along.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The page's lines outside fenced code blocks (a link in a code block is text). */
function prose(file: string): string[] {
  let fenced = false;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => {
      if (line.startsWith('```')) fenced = !fenced;
      return !fenced && !line.startsWith('```');
    });
}

function anchorsOf(file: string): Set<string> {
  const slugger = new GithubSlugger();
  return new Set(
    prose(file)
      .map((line) => /^#{1,6} (.+)$/.exec(line)?.[1])
      .filter((heading): heading is string => heading !== undefined)
      .map((heading) => slugger.slug(heading.replace(/`/g, ''))),
  );
}

describe('links in the README and docs/', () => {
  it.each(pages)('%s links only to files and headings that exist', (page) => {
    const broken: string[] = [];
    for (const line of prose(join(root, page))) {
      // Inline code is text too: `[x](y)` inside backticks is not a link.
      for (const [, target] of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path ? join(dirname(join(root, page)), path) : join(root, page);
        if (!existsSync(file)) broken.push(`${target}: no file ${relative(root, file)}`);
        else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${relative(root, file)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
