// gc_web_lookup: fetch a page through the SSRF guard, reduce it to its main content (Readability over
// linkedom, turndown to markdown, in the pool), and compress it into a query-relevant skeleton with
// the text compression use case.
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import type { Call } from '../call.js';
import { compressText } from '../compression/text.js';
import { invalid } from '../errors.js';
import { guardedGet, mediaType, refusal } from './guard.js';

export const HTML_TYPES = ['text/html', 'application/xhtml+xml'] as const;
export const TEXT_TYPES = ['text/plain', 'text/markdown', 'text/x-markdown'] as const;
export const PAGE_TYPES = [...HTML_TYPES, ...TEXT_TYPES] as const;

export interface LookupInput {
  url: string;
  query?: string | null;
  fidelity: Fidelity;
  include_markdown: boolean;
}

export async function webLookup(call: Call, input: LookupInput) {
  const settings = call.services.config.web;
  // Quota before any network work: a caller past it gets the refusal without a fetch.
  await call.requireQuota();
  const page = await guardedGet(settings, input.url, { accept: PAGE_TYPES }).catch((err) => refusal(err));
  const type = mediaType(page.contentType);
  let title: string | null = null;
  let markdown: string;
  let extraction: 'readability' | 'full_body' | 'none' = 'none';
  let meta: { byline: string | null; site_name: string | null; excerpt: string | null; lang: string | null } = { byline: null, site_name: null, excerpt: null, lang: null };
  if ((HTML_TYPES as readonly string[]).includes(type)) {
    const page2 = await call.compute('webExtract', { html: page.body }, { field: 'url' });
    title = page2.title;
    markdown = page2.markdown;
    extraction = page2.readable ? 'readability' : 'full_body';
    meta = { byline: page2.byline, site_name: page2.site_name, excerpt: page2.excerpt, lang: page2.lang };
  } else {
    markdown = page.body.trim();
  }
  if (!markdown.trim()) throw invalid(`empty_page: ${page.finalUrl} has no readable text`, { code: 'empty_page' });
  const query = input.query?.trim() || null;
  const skeleton = await compressText(call, { text: markdown, fidelity: input.fidelity, query });
  call.report({ ...call.reported!, inputText: query ?? page.finalUrl });
  return {
    url: input.url,
    final_url: page.finalUrl,
    title,
    ...meta,
    content_type: type,
    fetched_bytes: page.bytes,
    extraction,
    selection_mode: query ? 'query_guided' : 'baseline',
    query,
    skeleton: skeleton.compressed_text,
    original_tokens: skeleton.original_tokens,
    compressed_tokens: skeleton.compressed_tokens,
    savings_percent: skeleton.savings_percent,
    fidelity: skeleton.fidelity,
    original_id: skeleton.original_id,
    ...(input.include_markdown ? { markdown } : {}),
  };
}
