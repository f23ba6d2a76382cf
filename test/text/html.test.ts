// An HTML page sent to the text engine (workers/text/html.ts) is compressed as its text. Before, a
// page read as one Markdown HTML block, one unit: uWebSockets.js's 19,204-token HttpResponse page came
// back at balanced as `[… 19204 tokens #…]` and nothing else.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { htmlText, looksLikeHtml } from '../../workers/text/html.js';
import { countTokens } from '../../workers/shared/tokens.js';

const PAGE = () => readFileSync(resolve(process.cwd(), 'node_modules/uWebSockets.js/docs/generated/interfaces/HttpResponse.html'), 'utf8');
const TAG = /<\/?(?:div|span|a|p|li|ul|h\d|section|nav|meta|link|script|style)\b[^>]*>/i;

describe('HTML is compressed as its text', () => {
  it('a generated API page keeps its headings, signatures and prose, without markup, at every level', async () => {
    const html = PAGE();
    let last = 0;
    for (const fidelity of ['outline', 'balanced', 'detailed'] as const) {
      const r = await compressText({ text: html, fidelity, markerIds: true });
      expect(r.original_tokens).toBe(countTokens(html));
      expect(r.compressed_text, fidelity).not.toMatch(TAG);
      expect(r.compressed_text).toContain('# Interface HttpResponse');
      expect(r.compressed_text).toContain('An HttpResponse is valid until either onAborted callback or any of the .end/.tryEnd calls succeed.');
      // Each level keeps more than the one below it, and far more than a lone marker.
      expect(r.compressed_tokens, fidelity).toBeGreaterThan(Math.max(last, 100));
      last = r.compressed_tokens;
      // Every marker span is a piece of the page as sent, in order, tags included.
      const spans = r.markers!.spans;
      for (let k = 0; k < spans.length; k += 2) {
        expect(spans[k]!).toBeLessThan(spans[k + 1]!);
        if (k) expect(spans[k]!).toBeGreaterThanOrEqual(spans[k - 1]!);
      }
      expect(spans[spans.length - 1]!).toBeLessThanOrEqual(html.length);
    }
    expect(last).toBeLessThan(countTokens(html) / 5);
  });

  it('the text keeps where each character came from', () => {
    const html = PAGE();
    const t = htmlText(html)!;
    const sentence = 'An HttpResponse is valid until either onAborted callback';
    const k = t.text.indexOf(sentence);
    expect(k).toBeGreaterThan(0);
    for (let j = 1; j < sentence.length; j++) expect(html[t.originalOffset(k + j)]).toBe(sentence[j]);
    // At a word that follows tags, the offset is before the tags (they go with what follows them).
    expect(html.slice(t.originalOffset(k), t.originalOffset(k) + 200)).toMatch(new RegExp(`^(?:<[^>]*>\\s*)*${sentence}`));
    let prev = 0;
    for (let j = 0; j <= t.text.length; j += 97) {
      const o = t.originalOffset(j);
      expect(o).toBeGreaterThanOrEqual(prev);
      prev = o;
    }
  });

  it('structure, entities and skipped elements', () => {
    const html = [
      '<!DOCTYPE html><html><head><title>T</title><style>body{color:red}</style></head><body>',
      '<script>var secret = "never shown";</script><!-- a comment -->',
      '<h2>Install &amp; run</h2><p>Run <code>npm   install</code>,\n   then&nbsp;start.</p>',
      '<ul><li>first <b>item</b></li><li>second</li></ul>',
      '<pre>&lt;div class="x"&gt;\n  kept   as is\n&lt;/div&gt;</pre>',
      '<table><tr><th>Name</th><th>Port</th></tr><tr><td>api</td><td>8080</td></tr></table>',
      '</body></html>',
    ].join('');
    const t = htmlText(html)!.text;
    expect(t).toBe(
      [
        '## Install & run',
        '',
        'Run `npm install`, then start.',
        '',
        '- first item',
        '- second',
        '',
        '```',
        '<div class="x">',
        '  kept   as is',
        '</div>',
        '```',
        '',
        '| Name | Port',
        '| --- | --- |',
        '| api | 8080',
        '',
        '',
      ].join('\n').trimEnd() + '\n\n',
    );
    expect(t).not.toContain('secret');
    expect(t).not.toContain('comment');
  });

  it('Markdown holding some HTML stays Markdown; a page or a fragment of tags is HTML', async () => {
    const readme = readFileSync(resolve(process.cwd(), 'node_modules/piscina/README.md'), 'utf8');
    expect(looksLikeHtml(readme)).toBe(false);
    expect(looksLikeHtml(`<p align="center"><img src="logo.png"></p>\n\n# Title\n\n${'Some text about the project. '.repeat(20)}`)).toBe(false);
    expect(looksLikeHtml('Use a <div> around the <span> when the layout breaks. '.repeat(10))).toBe(false);
    expect(looksLikeHtml('<!doctype html><title>x</title><p>hello</p>')).toBe(true);
    // XML is not a page: a feed or a build file has names of its own.
    const feed = `<?xml version="1.0"?>\n<rss version="2.0"><channel>${Array.from({ length: 12 }, (_, i) => `<item><title>Release ${i}</title><link>https://example.org/r/${i}</link><pubDate>2026-11-${10 + i}</pubDate></item>`).join('\n')}</channel></rss>`;
    expect(looksLikeHtml(feed)).toBe(false);
    expect(looksLikeHtml(`<project>\n${'  <dependency><groupId>org.example</groupId><artifactId>core</artifactId><version>1.2.3</version></dependency>\n'.repeat(8)}</project>`)).toBe(false);
    expect(looksLikeHtml(`<div class="doc">${'<p class="para">Some <em>text</em> here.</p>'.repeat(10)}</div>`)).toBe(true);
    // A page that shows HTML source keeps it: its text is compressed as it is, not taken for markup again.
    const page = `<html><body><h1>Templates</h1>${Array.from({ length: 30 }, (_, i) => `<p>Template ${i} renders:</p><pre>&lt;section id="s${i}"&gt;&lt;h2&gt;Part ${i}&lt;/h2&gt;&lt;/section&gt;</pre>`).join('')}</body></html>`;
    const r = await compressText({ text: page, fidelity: 'detailed' });
    expect(r.compressed_text).toContain('<section id="s0"><h2>Part 0</h2></section>');
    // A Markdown document compresses exactly as before (it never enters the HTML path).
    const md = await compressText({ text: readme, fidelity: 'balanced' });
    expect(md.compressed_text).toContain('# Piscina');
  });

  // A chapter of the Rust book (mdBook) at balanced kept its keyboard-shortcut help and theme menu
  // and hid the whole chapter behind one marker: the furniture came first and took the budget.
  it('reads what a reader reads: the main element, never menus, dialogs, buttons or hidden parts', async () => {
    const chapter = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i} of the chapter says that Result&lt;T, E&gt; carries error ${i} to the caller, which decides whether to retry or to stop.</p>`).join('\n');
    const page = [
      '<!DOCTYPE html><html><head><title>Error Handling</title></head><body>',
      '<div id="help-container"><div id="help-popup" role="dialog"><h2>Keyboard shortcuts</h2><div><p>Press <kbd>S</kbd> to search</p></div></div></div>',
      '<div class="menu-bar"><button id="theme-toggle">Change theme</button>',
      '<ul id="theme-list" role="menu"><li role="none"><button role="menuitem">Light</button></li><li role="none"><button role="menuitem">Coal</button></li></ul>',
      '<h1 class="menu-title">The Book</h1></div>',
      '<nav class="sidebar"><ol><li><a href="ch01.html">Getting Started</a></li><li><a href="ch02.html">Guessing Game</a></li></ol></nav>',
      `<main><h1>Error Handling</h1>${chapter}<p class="hidden">Shown by a class: kept.</p><img hidden src="x.png">After the image.<div hidden><p>Never shown</p></div></main>`,
      '<nav class="nav-wrapper" aria-label="Page navigation"><a href="ch08.html">Previous</a></nav>',
      '</body></html>',
    ].join('\n');
    const t = htmlText(page)!.text;
    expect(t.startsWith('# Error Handling\n\nParagraph 0 of the chapter says that Result<T, E> carries error 0')).toBe(true);
    for (const gone of ['Keyboard shortcuts', 'Change theme', 'Coal', 'Getting Started', 'The Book', 'Previous', 'Never shown']) expect(t).not.toContain(gone);
    expect(t).toContain('Shown by a class: kept.');
    expect(t).toContain('After the image.');
    const r = await compressText({ text: page, fidelity: 'balanced', markerIds: true });
    expect(r.compressed_text).toMatch(/^# Error Handling\n\nParagraph 0 of the chapter/);

    // A heading's permalink is no text; a link's own text is.
    expect(htmlText('<body><h2 id="x">Install<a class="headerlink" href="#x">¶</a></h2><p>See <a href="#y">§ 4</a> and <a href="#z">&sect;</a>.</p></body>')!.text).toBe('## Install\n\nSee § 4 and .\n\n');

    // A main element holding less than half the text is not the page: all of it is read, furniture aside.
    const teaser = `<body><main><p>Welcome.</p></main><article>${chapter}</article><div aria-hidden="true"><div><p>Icon</p></div><p>Still icon</p></div><p>Closing words.</p></body>`;
    const whole = htmlText(teaser)!.text;
    expect(whole).toContain('Welcome.');
    expect(whole).toContain('Paragraph 5 of the chapter');
    expect(whole).not.toMatch(/Icon/);
    expect(whole).toContain('Closing words.');
    // The site's header and footer by their roles, and a modal (a cookie banner), are furniture too.
    const site = htmlText(`<body><header role="banner"><p>Acme Docs</p></header><div aria-modal="true"><p>We use cookies.</p></div><article><header><h1>Title</h1></header>${chapter}</article><footer role="contentinfo"><p>© Acme</p></footer></body>`)!.text;
    expect(site.startsWith('# Title\n\nParagraph 0')).toBe(true);
    for (const gone of ['Acme', 'cookies']) expect(site).not.toContain(gone);
    // An element whose end is never found is read as content (nothing after it is lost).
    expect(htmlText('<body><div role="navigation"><p>Menu</p><p>Body text.</p></body>')!.text).toContain('Body text.');
  });

  it('a table reads as a Markdown table: a header row, the delimiter, one line per row', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `<tr><td><code>lint_${i}</code></td><td>${i % 3 ? 'warn' : 'deny'}</td><td>Checks pattern ${i} of the crate's modules.</td></tr>`).join('\n');
    const page = `<html><body><h1>Lints</h1><p>Every lint the compiler knows, with its default level.</p><table><thead><tr><th>Lint</th><th>Level</th><th>What</th></tr></thead>\n<tbody>${rows}</tbody></table><p>Levels can be changed per crate.</p></body></html>`;
    const t = htmlText(page)!.text;
    expect(t).toContain('| Lint | Level | What\n| --- | --- | --- |\n| `lint_0` | deny | Checks pattern 0');
    // The engine keeps the header with the rows it keeps, and tells hidden rows apart from sentences.
    const r = await compressText({ text: page, fidelity: 'balanced' });
    expect(r.compressed_text).toContain('| Lint | Level | What\n| --- | --- | --- |\n');
    expect(r.compressed_text).toMatch(/\[… [^\]]*\b\d+ rows\b/);
    // A layout table (blocks in its cells) or a nested one gets no delimiter: it stays lines of cells.
    expect(htmlText('<body><table><tr><td><p>Side</p><p>bar</p></td><td>Body</td></tr><tr><td>a</td><td>b</td></tr></table></body>')!.text).not.toContain('---');
    expect(htmlText('<body><table><tr><td><table><tr><td>x</td></tr><tr><td>y</td></tr></table></td></tr></table></body>')!.text).not.toContain('---');
  });

  it('a code block that shows Markdown fences gets a longer fence, so it stays one block', () => {
    const t = htmlText('<html><body><p>Write this README:</p><pre><code># Docs\n\n```rust\nfn main() {}\n```\n</code></pre><p>Then run it.</p></body></html>')!.text;
    expect(t).toContain('````\n# Docs\n\n```rust\nfn main() {}\n```\n````');
    expect(htmlText('<body><pre>plain</pre></body>')!.text).toContain('```\nplain\n```');
  });
});
