// Navigable elision markers (issue 23, docs/markers.md): the expand route and tool are extensions
// (outsideSpec); the spec's compression outputs carry the markers they expand.
import { t, type ContractContext, type ContractFile } from '../contract.js';

const DOC = Array.from({ length: 6 }, (_, i) => `## Section ${i + 1}\n\nThe contract suite compresses this section number ${i + 1}. It has two sentences of plain prose to drop.`).join('\n\n');

/** A marker id from a fresh compression by the owner. */
async function markerId(c: ContractContext): Promise<string> {
  const out: string = (await c.ok('POST', '/v1/compress', { text: DOC, fidelity: 'abstract' })).compressed_text;
  const id = /#(\d{12}\.\d+)\]/.exec(out)?.[1];
  if (!id) throw new Error(`fixture: no navigable marker in ${out.slice(0, 200)}`);
  return id;
}

export default {
  area: 'Navigable elision markers (extension)',
  routes: [
    {
      method: 'POST',
      path: '/v1/expand',
      spec: 'Original-output preservation | automatic when compression exceeds 80%',
      outsideSpec: 'Expands the id of an elision marker in any compressed output back to the exact text it hides (issue 23; docs/markers.md).',
      request: async (c) => ({ body: { ids: [await markerId(c)] } }),
      status: 200,
      fields: { expansions: t.array, 'expansions[].id': t.string, 'expansions[].text': t.string },
    },
  ],
  tools: [
    {
      tool: 'expand_markers',
      spec: 'Original-output preservation | automatic when compression exceeds 80%',
      outsideSpec: 'The MCP side of POST /v1/expand, through the same use case (issue 23; docs/markers.md).',
      args: async (c) => ({ ids: [await markerId(c)] }),
      fields: { expansions: t.array, 'expansions[].id': t.string, 'expansions[].text': t.string },
    },
  ],
} satisfies ContractFile;
