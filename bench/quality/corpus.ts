// Loads the quality corpus: real documents already on the machine, referenced by path or pydoc topic.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface DocumentRef {
  id: string;
  source: 'file' | 'pydoc';
  path?: string;
  topic?: string;
}
export interface Probe {
  doc: string;
  query: string;
  answer: string;
  /** Other verbatim places in the same document that state the same fact. */
  alternatives?: string[];
  /** Added after the engine's weights were tuned; reported separately too. */
  heldout?: boolean;
  /** "paraphrase": the query shares few words with its answer; reported separately. */
  kind?: 'paraphrase';
}

export function answered(output: string, p: Probe): boolean {
  return output.includes(p.answer) || (p.alternatives ?? []).some((a) => output.includes(a));
}
export interface ProbeFile {
  documents: DocumentRef[];
  /** Documents never used for tuning: detail retention without a query only. */
  heldout_documents?: DocumentRef[];
  probes: Probe[];
}

export function probesPath(): string {
  return resolve(process.cwd(), 'bench/quality/probes.json');
}

export function loadProbeFile(): ProbeFile {
  return JSON.parse(readFileSync(probesPath(), 'utf8')) as ProbeFile;
}

/** Python's own documentation topics (pydoc_data ships with CPython), read through python3. */
export function pydocTopics(topics: string[] | 'all'): Record<string, string> {
  const script =
    'import json, sys, pydoc_data.topics as t\n' +
    'names = sorted(t.topics) if sys.argv[1:] == ["--all"] else sys.argv[1:]\n' +
    'json.dump({k: t.topics[k] for k in names}, sys.stdout)';
  const out = execFileSync('python3', ['-c', script, ...(topics === 'all' ? ['--all'] : topics)], { maxBuffer: 64 << 20 });
  return JSON.parse(out.toString('utf8')) as Record<string, string>;
}

export function loadDocuments(refs: DocumentRef[]): Map<string, string> {
  const topics = refs.filter((d) => d.source === 'pydoc').map((d) => d.topic!);
  const py = topics.length ? pydocTopics(topics) : {};
  const docs = new Map<string, string>();
  for (const d of refs) {
    docs.set(d.id, d.source === 'file' ? readFileSync(resolve(process.cwd(), d.path!), 'utf8') : py[d.topic!]!);
  }
  return docs;
}
