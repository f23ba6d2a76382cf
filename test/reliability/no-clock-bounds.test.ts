// Tests wait on events, not clocks (issue 47): no test sleeps a fixed time hoping the condition has
// come by then (a loaded machine makes it fail, an idle one makes it slow; test/helpers/waitFor.ts
// polls for the condition instead), and no assertion is `>= 0`, which a count or a measure always
// passes: a test names the value it expects. Files that still sleep are listed with the count and why.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';

const TEST_DIR = join(packageRoot(), 'test');
const SELF = 'test/reliability/no-clock-bounds.test.ts';

/** A promise resolved by a timer (`new Promise((r) => setTimeout(r, …))`), or sleep/delay with a number. */
const FIXED_SLEEP = /new Promise\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*setTimeout\(\s*\1\s*,|\b(?:sleep|delay)\(\s*\d/g;
const AT_LEAST_ZERO = /toBeGreaterThanOrEqual\(\s*0\s*\)/g;

/**
 * Sleeps left, per file, with the reason the sleep is the point ("stays"). The count must match, so a
 * new sleep fails and a removed one asks for its entry to go.
 */
const SLEEPS_ALLOWED: Record<string, { count: number; reason: string }> = {
  'test/helpers/waitFor.ts': { count: 1, reason: 'stays: the polling interval of waitFor itself' },
  'test/scale/cluster.test.ts': { count: 1, reason: 'stays: waits for the next one-minute rate-limit window, which is aligned to the clock' },
  'test/web/web.test.ts': { count: 1, reason: 'stays: paces the /health probes sent while a lookup runs (a load pattern, not a wait)' },
  'test/reliability/postgres-closed-socket.test.ts': { count: 1, reason: 'stays: the repro script gives a late uncaught socket error room to surface between queries' },
  'test/server/lifecycle.test.ts': { count: 1, reason: 'stays: paces the senders before the kill -9, so fewer ingests are left for the restart to finish (a load pattern, not a wait)' },
};

/** `>= 0` assertions left, per file (none: a new one needs its reason here). */
const AT_LEAST_ZERO_LEFT: Record<string, { count: number; reason: string }> = {};

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [relative(packageRoot(), path)] : [];
  });
}

const sources = testFiles(TEST_DIR)
  .filter((f) => f !== SELF)
  .map((file) => ({ file, text: readFileSync(join(packageRoot(), file), 'utf8') }));

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;
const hits = (re: RegExp) =>
  sources.flatMap(({ file, text }) => [...text.matchAll(re)].map((m) => ({ file, line: lineOf(text, m.index!), match: m[0] })));

/** Files whose count differs from the allow-list, and allow-list entries whose file has none left. */
function againstAllowList(re: RegExp, allowed: Record<string, { count: number }>): { unexpected: string[]; stale: string[] } {
  const counts = new Map<string, number>();
  for (const h of hits(re)) counts.set(h.file, (counts.get(h.file) ?? 0) + 1);
  const unexpected = [...counts]
    .filter(([file, n]) => n !== allowed[file]?.count)
    .map(([file, n]) => `${file}: ${n} (allowed ${allowed[file]?.count ?? 0}) at lines ${hits(re).filter((h) => h.file === file).map((h) => h.line).join(', ')}`);
  return { unexpected, stale: Object.keys(allowed).filter((file) => !counts.has(file)) };
}

describe('tests wait on events, not clocks', () => {
  it('the patterns find what they are for', () => {
    expect('await new Promise((r) => setTimeout(r, 20));'.match(FIXED_SLEEP)).toHaveLength(1);
    expect('await new Promise((resolve) => setTimeout(resolve, JOURNAL_MS * 4));'.match(FIXED_SLEEP)).toHaveLength(1);
    expect('await sleep(100); await delay(5)'.match(FIXED_SLEEP)).toHaveLength(2);
    expect('setTimeout(() => stop.abort(), ms)'.match(FIXED_SLEEP)).toBeNull();
    expect('expect(n).toBeGreaterThanOrEqual( 0 )'.match(AT_LEAST_ZERO)).toHaveLength(1);
    expect('expect(n).toBeGreaterThanOrEqual(10)'.match(AT_LEAST_ZERO)).toBeNull();
    expect(sources.length).toBeGreaterThan(100);
  });

  it('no assertion is >= 0: each names the value (or the > 0) it expects', () => {
    const { unexpected, stale } = againstAllowList(AT_LEAST_ZERO, AT_LEAST_ZERO_LEFT);
    expect(unexpected, 'assert the value the test knows, or > 0 where it must be positive').toEqual([]);
    expect(stale, 'listed >= 0 assertions that are gone: remove the entry').toEqual([]);
  });

  it('no fixed sleeps outside the allow-list, and the allow-list matches what is there', () => {
    const { unexpected, stale } = againstAllowList(FIXED_SLEEP, SLEEPS_ALLOWED);
    expect(unexpected, 'wait for the condition (test/helpers/waitFor.ts), or allow-list the sleep with its reason').toEqual([]);
    expect(stale, 'allow-listed sleeps that are gone: remove the entry').toEqual([]);
  });
});
