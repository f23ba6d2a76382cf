import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { FIDELITY_BUDGET } from '../../workers/shared/fidelity.js';
import { realDoc } from './helpers.js';

/** A long document in which one late, unremarkable section holds the fact the query asks about. */
function manual(): string {
  const topics = ['Installation', 'Configuration', 'Logging', 'Networking', 'Storage', 'Monitoring', 'Scaling', 'Backups', 'Upgrades', 'Security'];
  const parts = ['# Operations Manual', '', 'This manual describes how to operate the service in production. It covers every subsystem in turn.', ''];
  topics.forEach((t, k) => {
    parts.push(`## ${t}`, '');
    for (let p = 0; p < 4; p++) {
      parts.push(
        `The ${t.toLowerCase()} subsystem is central to operating the service and most operators configure it early. ` +
          `Operators usually review ${t.toLowerCase()} settings during the first deployment and again after major changes. ` +
          `Careful ${t.toLowerCase()} planning reduces incidents and keeps the service predictable for users in step ${k}.${p}.`,
        '',
      );
    }
  });
  // The fact carries no number or code name: plain mode favours sentences with details nothing kept holds yet.
  parts.push('## Certificates', '', 'Certificates are handled by a small helper process.', '', 'The helper rotates the Kerberos keytab every day and a half using the renewal command.', '');
  return parts.join('\n');
}

describe('query-guided mode', () => {
  const text = manual();
  const fact = 'The helper rotates the Kerberos keytab every day and a half using the renewal command.';

  it('plain mode drops the buried section at outline', async () => {
    const r = await compressText({ text, fidelity: 'outline' });
    expect(r.mode).toBe('plain');
    expect(r.compressed_text).not.toContain(fact);
  });

  it('query-guided mode keeps it, with its heading, at the same ratio', async () => {
    const plain = await compressText({ text, fidelity: 'outline' });
    const r = await compressText({ text, fidelity: 'outline', query: 'How often is the Kerberos keytab rotated?' });
    expect(r.mode).toBe('query-guided');
    expect(r.compressed_text).toContain(fact);
    expect(r.compressed_text).toContain('## Certificates');
    expect(r.ratio).toBeLessThanOrEqual(FIDELITY_BUDGET.outline + 0.001);
    expect(Math.abs(r.compressed_tokens - plain.compressed_tokens)).toBeLessThan(plain.compressed_tokens * 0.2);
  });

  it('a blank query is plain mode', async () => {
    const r = await compressText({ text, fidelity: 'outline', query: '   ' });
    expect(r.mode).toBe('plain');
  });

  it('finds a fact in a real README that plain compression drops', async () => {
    const doc = realDoc();
    const answer = 'between 45 and 90 minutes';
    const plain = await compressText({ text: doc, fidelity: 'abstract' });
    const guided = await compressText({ text: doc, fidelity: 'abstract', query: 'What is the default max lifetime of connections?' });
    expect(plain.compressed_text).not.toContain(answer);
    expect(guided.compressed_text).toContain(answer);
  });

  it('fuses the optional embedding hook (RRF) when given', async () => {
    const calls: string[][] = [];
    // A toy "embedding": 1-d vectors where only the Certificates sentence is similar to the query.
    const embed = async (texts: string[]) => {
      calls.push(texts);
      return texts.map((t, i) => Float32Array.from(i === 0 || /keytab/.test(t) ? [1, 0] : [0, 1]));
    };
    const r = await compressText({ text, fidelity: 'abstract', query: 'credential refresh schedule' }, { embed });
    expect(calls.length).toBe(1);
    expect(calls[0]![0]).toBe('credential refresh schedule');
    expect(r.compressed_text).toContain(fact);
    const without = await compressText({ text, fidelity: 'abstract', query: 'credential refresh schedule' });
    expect(without.compressed_text).not.toContain(fact);
  });
});
