// One text at every fidelity in one pool task: multilevel_encode (a text as sent) and
// get_multi_level_skeleton (an ingested document, each level addressable as file_id + fidelity,
// which read_skeleton also answers).
import { FIDELITIES, type Fidelity } from '../../../workers/shared/fidelity.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import type { Call } from '../call.js';
import { getDocumentContent } from './documents.js';
import { ownedDocument } from './skeletons.js';
import { compressParts } from './text.js';
import { notFound } from '../errors.js';

type Level = Exclude<Fidelity, 'raw'>;
export const LEVELS = FIDELITIES.filter((f): f is Level => f !== 'raw');

export async function multiLevel(call: Call, text: string, levels: readonly Level[] = LEVELS) {
  await call.requireQuota();
  const results = await compressParts(call, levels.map((fidelity) => ({ text, fidelity })));
  const original = results[0]?.original_tokens ?? 0;
  const out = levels.map((fidelity, i) => ({
    fidelity,
    text: results[i]!.compressed_text,
    tokens: results[i]!.compressed_tokens,
    savings_percent: savingsPercent(original, results[i]!.compressed_tokens),
  }));
  // The call's one usage event: the text sent in, and every token sent back (all levels together).
  call.report({ inputTokens: original, outputTokens: out.reduce((s, l) => s + l.tokens, 0), inputText: text });
  return { original_tokens: original, levels: out };
}

export async function documentLevels(call: Call, fileId: string, levels?: readonly Level[]) {
  const doc = await ownedDocument(call, fileId);
  const content = await getDocumentContent(call.services.db, call.principal.userId, fileId);
  if (content === null) throw notFound(`No document ${fileId}`);
  const r = await multiLevel(call, content, levels);
  return { file_id: doc.id, name: doc.name, ...r };
}
