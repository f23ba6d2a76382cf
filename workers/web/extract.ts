// HTML page -> main content as markdown: Readability over a linkedom DOM, then turndown. Runs in a
// pool worker (linkedom needs no real DOM and no main-thread globals).
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export interface ExtractedPage {
  title: string | null;
  byline: string | null;
  site_name: string | null;
  excerpt: string | null;
  lang: string | null;
  markdown: string;
  /** False when Readability found no article and the whole body was converted instead. */
  readable: boolean;
}

let turndown: TurndownService | null = null;

function converter(): TurndownService {
  if (!turndown) {
    turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    // Scripts, styles and embedded frames carry no readable content.
    turndown.remove(['script', 'style', 'noscript', 'iframe', 'template']);
  }
  return turndown;
}

const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t ? t : null;
};

/** Collapses the blank-line runs turndown leaves after removed elements. */
function tidy(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}

export function extractPage(html: string): ExtractedPage {
  const { document } = parseHTML(html);
  const title = clean(document.querySelector('title')?.textContent);
  const lang = clean(document.documentElement?.getAttribute('lang'));
  let article: ReturnType<Readability<string>['parse']> = null;
  try {
    // Readability mutates the document; the fallback below parses the page again.
    article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  if (article?.content && clean(article.textContent)) {
    const heading = clean(article.title) ?? title;
    let markdown = tidy(converter().turndown(article.content));
    // Readability drops the page's own h1 when it equals the title: put the title back as the top heading.
    if (heading && !markdown.startsWith('# ')) markdown = `# ${heading}\n\n${markdown}`;
    return {
      title: heading,
      byline: clean(article.byline),
      site_name: clean(article.siteName),
      excerpt: clean(article.excerpt),
      lang: clean(article.lang) ?? lang,
      markdown,
      readable: true,
    };
  }
  const body = parseHTML(html).document.querySelector('body');
  const markdown = body ? tidy(converter().turndown(body.innerHTML ?? '')) : '';
  return { title, byline: null, site_name: null, excerpt: null, lang, markdown: title && !markdown.startsWith('# ') ? tidy(`# ${title}\n\n${markdown}`) : markdown, readable: false };
}

/** An HTML fragment (a feed item's content) as markdown. */
export function fragmentToMarkdown(html: string): string {
  if (!/[<&]/.test(html)) return html.trim();
  return tidy(converter().turndown(html));
}
