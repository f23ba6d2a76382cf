import { describe, expect, it } from 'vitest';
import { detectIssues, qualityScore, MAX_BLIND_SPOTS } from '../../workers/detect/index.js';
import type { DetectResult } from '../../workers/detect/index.js';
import { detectTasks } from '../../workers/detect/tasks.js';

export const DOC = `# Acme Server

Acme Server is a small HTTP server for internal tools. It is written in TypeScript and runs on Node 20.

## Installation

Install the package with \`npm install acme-server\`. The server listens on port 8080 by default.
You must not run the server as root. Connections time out after 30 seconds.

- The \`maxConnections\` option limits concurrent clients to 100.
- Set \`ACME_LOG_LEVEL\` to \`debug\` for verbose logs.

## Limits

| name | default | max |
|------|---------|-----|
| maxConnections | 100 | 1000 |
| requestTimeout | 30 | 300 |

At most 100 connections are allowed per client. Requests larger than 10 MB are rejected with HTTP 413.
The \`maxConnections\` option is read once at startup.

> **Warning:** never expose the admin port 9090 to the public internet.

## Error codes

The server reports E1042 when the configuration file is missing. It reports ERR_ACME_BIND when the port is taken.
Retries happen before the request is logged.

## History

The project started in March 2019 at Acme. It was rewritten in 2021 and is maintained by the platform team.
`;

const hall = (r: DetectResult) => r.issues.filter((i) => i.type === 'hallucination');
const blind = (r: DetectResult) => r.issues.filter((i) => i.type === 'blind_spot');
const detect = (compressed: string, extra: Partial<Parameters<typeof detectIssues>[0]> = {}) =>
  detectIssues({ original_text: DOC, compressed_text: compressed, ...extra });

/** A compression that keeps some sentences verbatim and elides the rest with the text engine's markers. */
const KEPT = `# Acme Server

Acme Server is a small HTTP server for internal tools. [… 1 sentence, 12 tokens]

## Installation

Install the package with \`npm install acme-server\`. The server listens on port 8080 by default.
You must not run the server as root. [… 1 sentence, 8 tokens]

- The \`maxConnections\` option limits concurrent clients to 100.

[… 1 sentence, 14 tokens]

## Limits

| name | default | max |
|------|---------|-----|
| maxConnections | 100 | 1000 |

[… 1 row, 2 sentences, 40 tokens]

> **Warning:** never expose the admin port 9090 to the public internet.

## Error codes

The server reports E1042 when the configuration file is missing. It reports ERR_ACME_BIND when the port is taken.
Retries happen before the request is logged.

## History

[… 2 sentences, 30 tokens]`;

describe('clean compressions', () => {
  it('scores an identical text exactly 1.0 with no issues', async () => {
    const r = await detect(DOC);
    expect(r).toEqual({ issues_found: 0, issues: [], quality_score: 1 });
  });

  it('finds no hallucination in a verbatim extractive compression with elision markers', async () => {
    const r = await detect(KEPT);
    expect(hall(r)).toEqual([]);
    expect(r.issues_found).toBe(r.issues.length);
  });

  it('ignores every elision marker spelling and markdown decoration', async () => {
    const c = `## Installation\n\n[… 3 sentences, 212 tokens]\n\n- The server listens on port 8080 by default. [… 1 heading, 2 sentences, 1 row, 4 code lines, 1 block, 99 tokens] You must not run the server as root.\n\n[... 2 sentences]\n\n[…]\n\n[… 2 keys, 40 tokens]\n\n[… 8 items (disable, enable, …): 1635 tokens #482913650271.4]\n\n| maxConnections | 100 | 1000 |`;
    const r = await detect(c, { check_blind_spots: false });
    expect(r.issues).toEqual([]);
    expect(r.quality_score).toBe(1);
  });

  it('handles CRLF line endings and an original with no headings', async () => {
    const crlf = await detectIssues({ original_text: DOC.replaceAll('\n', '\r\n'), compressed_text: KEPT.replaceAll('\n', '\r\n') });
    expect(hall(crlf)).toEqual([]);
    const plain = 'The cache holds 500 entries. Never call flush() from a request handler. Entries expire after 60 seconds.';
    const r = await detectIssues({ original_text: plain, compressed_text: 'The cache holds 500 entries.' });
    expect(hall(r)).toEqual([]);
    expect(blind(r).map((i) => i.location)).toContain('original:line 1');
  });

  it('does not flag harmless rewording', async () => {
    const c = 'By default the server listens on port 8080. Running the server as root must not be done.';
    const r = await detect(c, { check_blind_spots: false });
    expect(hall(r).filter((i) => i.severity !== 'low')).toEqual([]);
    const v = await detectIssues({
      original_text: 'Version 2.0.0 of the client requires 1,000 MB of memory and thirty workers.',
      compressed_text: 'The client, version 2.0.0, requires 1000 MB of memory and 30 workers.',
    });
    expect(hall(v)).toEqual([]);
  });
});

describe('hallucinations', () => {
  it('flags a changed number as high with its compressed location', async () => {
    const c = KEPT.replace('port 8080 by default', 'port 8000 by default');
    const [issue, ...rest] = hall(await detect(c));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ type: 'hallucination', severity: 'high' });
    expect(issue!.description).toMatch(/Changed number: "8000".*"8080"/);
    const start = c.indexOf('The server listens on port 8000');
    const line = c.slice(0, start).split('\n').length;
    expect(issue!.location).toBe(`compressed:line ${line}, chars ${start}-${start + 'The server listens on port 8000 by default.'.length}`);
  });

  it('flags a changed unit', async () => {
    const r = await detect('Connections time out after 30 minutes.', { check_blind_spots: false });
    expect(hall(r)[0]).toMatchObject({ severity: 'high' });
    expect(hall(r)[0]!.description).toMatch(/unit/i);
  });

  it('flags a removed negation as high', async () => {
    const r = await detect(KEPT.replace('You must not run the server as root.', 'You must run the server as root.'));
    const h = hall(r);
    expect(h).toHaveLength(1);
    expect(h[0]).toMatchObject({ severity: 'high' });
    expect(h[0]!.description).toMatch(/Flipped negation/);
  });

  it('flags verbatim text cut right after its negation', async () => {
    const r = await detect('expose the admin port 9090 to the public internet.', { check_blind_spots: false });
    expect(hall(r)[0]).toMatchObject({ severity: 'high' });
    expect(hall(r)[0]!.description).toMatch(/Flipped negation: the original says "never …"/);
    // Reworded (capitalised) it goes through alignment and is still a flip.
    const c = await detect('Expose the admin port 9090 to the public internet.', { check_blind_spots: false });
    expect(hall(c)[0]!.description).toMatch(/Flipped negation/);
    expect(hall(await detect('The server as root.', { check_blind_spots: false }))[0]?.description).toMatch(/Flipped negation/);
  });

  it('flags an added negation and never -> always', async () => {
    const a = await detect('Retries do not happen before the request is logged.', { check_blind_spots: false });
    expect(hall(a)[0]?.description).toMatch(/Flipped negation/);
    const b = await detect('> **Warning:** always expose the admin port 9090 to the public internet.', { check_blind_spots: false });
    expect(hall(b)[0]).toMatchObject({ severity: 'high' });
  });

  it('flags a swapped identifier naming both', async () => {
    const c = KEPT.replace('It reports ERR_ACME_BIND when', 'It reports ERR_ACME_LISTEN when');
    const h = hall(await detect(c));
    expect(h).toHaveLength(1);
    expect(h[0]).toMatchObject({ severity: 'high' });
    expect(h[0]!.description).toContain('ERR_ACME_LISTEN');
    const d = hall(await detect('- The `minConnections` option limits concurrent clients to 100.', { check_blind_spots: false }));
    expect(d[0]!.description).toMatch(/Swapped identifier: "minConnections".*"maxConnections"/);
  });

  it('flags modality and comparative changes', async () => {
    const m = await detect('You may not run the server as root.', { check_blind_spots: false });
    expect(hall(m)[0]?.description).toMatch(/modality/i);
    const c = await detect('Retries happen after the request is logged.', { check_blind_spots: false });
    expect(hall(c)[0]).toMatchObject({ severity: 'high' });
    expect(hall(c)[0]!.description).toMatch(/"after".*"before"/);
  });

  it('flags an unsupported added sentence by its content', async () => {
    const plain = hall(await detect(KEPT + '\n\nThe marketing dashboard refreshes campaign statistics for every regional office.'));
    expect(plain).toHaveLength(1);
    expect(plain[0]!.severity).toBe('medium');
    expect(plain[0]!.description).toMatch(/Unsupported statement/);
    const numeric = hall(await detect(KEPT + '\n\nAll invoices are archived to cold storage after 90 days.'));
    expect(numeric[0]!.severity).toBe('high');
  });
});

describe('blind spots', () => {
  it('reports a deleted warning at its original line', async () => {
    const c = KEPT.replace('> **Warning:** never expose the admin port 9090 to the public internet.\n\n', '');
    const r = await detect(c, { check_hallucination: false });
    const w = blind(r).find((i) => /warning/i.test(i.description));
    expect(w).toBeDefined();
    expect(w!.severity).toBe('high');
    const line = DOC.split('\n').findIndex((l) => l.includes('never expose')) + 1;
    expect(w!.location).toBe(`original:line ${line} (section "Limits")`);
    expect(w!.description).toContain('never expose the admin port');
  });

  it('reports a vanished section, lost error codes and limits with severities', async () => {
    const c = '# Acme Server\n\nAcme Server is a small HTTP server for internal tools.\n\n## Installation\n\nInstall the package with `npm install acme-server`.';
    const r = await detect(c, { check_hallucination: false });
    const errs = blind(r).find((i) => /Section "Error codes" was dropped/.test(i.description));
    expect(errs).toMatchObject({ severity: 'medium' });
    expect(errs!.description).toContain('E1042');
    expect(errs!.location).toMatch(/^original:lines \d+-\d+ \(section "Error codes"\)$/);
    const limits = blind(r).find((i) => /Section "Limits" was dropped/.test(i.description));
    expect(limits).toMatchObject({ severity: 'high' }); // it holds the "never expose" warning
    const lost = blind(r).find((i) => /Lost warning in section "Installation"/.test(i.description));
    expect(lost).toMatchObject({ severity: 'high' });
    expect(blind(r).every((i) => i.location === null || /^original:lines? /.test(i.location))).toBe(true);
  });

  it('keeps blind spots bounded and focused', async () => {
    const sections = Array.from({ length: 60 }, (_, k) => `## Part ${k}\n\nNever call \`part${k}Reset\` twice. The limit is ${k + 10} items per call. Uses \`part${k}Reset\` internally.`).join('\n\n');
    const r = await detectIssues({ original_text: sections, compressed_text: '## Part 0\n\nNever call `part0Reset` twice.' });
    expect(r.issues.length).toBeLessThanOrEqual(MAX_BLIND_SPOTS + 1);
    expect(r.issues.at(-1)).toMatchObject({ location: null, severity: 'low' });
  });

  it('does not report what the compression kept', async () => {
    const r = await detect(KEPT, { check_hallucination: false });
    expect(blind(r).some((i) => /never expose/.test(i.description))).toBe(false);
    expect(blind(r).some((i) => /E1042/.test(i.description))).toBe(false);
  });
});

describe('flags, score and shape', () => {
  it('returns no issues when both checks are off', async () => {
    const r = await detect('Totally unrelated text about 42 bananas.', { check_hallucination: false, check_blind_spots: false });
    expect(r).toEqual({ issues_found: 0, issues: [], quality_score: 1 });
  });

  it('runs only the requested check', async () => {
    const c = 'The server listens on port 9999 by default.';
    const onlyH = await detect(c, { check_blind_spots: false });
    expect(onlyH.issues.every((i) => i.type === 'hallucination')).toBe(true);
    expect(onlyH.issues.length).toBeGreaterThan(0);
    const onlyB = await detect(c, { check_hallucination: false });
    expect(onlyB.issues.every((i) => i.type === 'blind_spot')).toBe(true);
    expect(onlyB.issues.length).toBeGreaterThan(0);
  });

  it('quality score is 1 only when nothing is found and falls with severity', async () => {
    expect(qualityScore([])).toBe(1);
    const low = qualityScore([{ type: 'blind_spot', severity: 'low', description: '', location: null }]);
    const high = qualityScore([{ type: 'hallucination', severity: 'high', description: '', location: null }]);
    expect(low).toBeLessThan(1);
    expect(high).toBeLessThan(low);
    const many = qualityScore(Array.from({ length: 20 }, () => ({ type: 'hallucination' as const, severity: 'high' as const, description: '', location: null })));
    expect(many).toBe(0);
    const r = await detect(KEPT.replace('8080', '8000'));
    expect(r.issues.length).toBeGreaterThan(0);
    expect(r.quality_score).toBe(qualityScore(r.issues));
    expect(r.quality_score).toBeLessThan(1);
    expect(r.issues_found).toBe(r.issues.length);
  });

  it('uses the documented location formats', async () => {
    const r = await detect(KEPT.replace('8080', '8000') + '\n\nThe orchestra rehearses the second movement at half tempo on Mondays.');
    for (const i of r.issues) {
      if (i.type === 'hallucination') expect(i.location).toMatch(/^compressed:line \d+, chars \d+-\d+$/);
      else if (i.location !== null) expect(i.location).toMatch(/^original:(line \d+|lines [\d, -]+(\(\+\d+ more\))?)( \(section ".*"\))?$/);
    }
  });

  it('task output is structured-cloneable plain data', async () => {
    const r = await detectTasks.detectIssues({ original_text: DOC, compressed_text: KEPT.replace('8080', '8000') });
    expect(structuredClone(r)).toEqual(r);
  });
});

describe('embeddings hook', () => {
  const para = 'Superuser privileges are forbidden for the daemon process.';
  it('rescues a paraphrase the embedder says is close, and survives a failing embedder', async () => {
    const plain = await detect(para, { check_blind_spots: false });
    expect(hall(plain)[0]?.description).toMatch(/Unsupported/);
    const embed = async (texts: string[]) => texts.map((t) => (t === para || t.includes('as root') ? new Float32Array([1, 0]) : new Float32Array([0, 1])));
    const rescued = await detectIssues({ original_text: DOC, compressed_text: para, check_blind_spots: false }, { embed });
    expect(hall(rescued).filter((i) => /Unsupported/.test(i.description))).toEqual([]);
    const failing = await detectIssues({ original_text: DOC, compressed_text: para, check_blind_spots: false }, { embed: async () => { throw new Error('down'); } });
    expect(hall(failing)[0]?.description).toMatch(/Unsupported/);
  });
});
