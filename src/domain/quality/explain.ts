import type { ExplainInput } from '../../../workers/text/explain.js';
import type { Call } from '../call.js';
import { rememberMarkers } from '../compression/markerStore.js';

/** explain_compression_decision: the text engine's scores and choice for one compression, from the pool. */
export async function explainCompressionDecision(call: Call, input: ExplainInput & { include_compressed_text: boolean }) {
  const { include_compressed_text, ...task } = input;
  const r = await call.compute('explainCompression', task);
  const { compressed_text, markers, ...rest } = r;
  if (!include_compressed_text) return rest;
  rememberMarkers(call.services, call.principal.userId, input.text, markers);
  return { ...rest, compressed_text };
}
