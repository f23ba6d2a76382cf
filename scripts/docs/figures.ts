// Figures in docs/ that go stale as the catalogue grows (tools per toolset, their tokens, the agent card's
// size), computed from the registry and written between markers: `npm run docs:figures`. A test fails
// when a doc disagrees with what this computes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../src/lib/root.js';
import { packageVersion } from '../../src/config.js';
import { buildAgentCard } from '../../src/mcp/agentCard.js';
import { allTools, toolList } from '../../src/mcp/registry.js';
import { CORE_TOOLS, toolsetNames } from '../../src/mcp/toolsets.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { renderDomainAreas } from './domainAreas.js';

const fmt = (n: number) => n.toLocaleString('en-US');

/** o200k_base tokens of the compact tools/list result an agent receives for these toolsets. */
function listed(toolsets: ReadonlySet<string> | 'all'): { tools: number; tokens: number; names: string[] } {
  const tools = toolList(toolsets);
  return { tools: tools.length, tokens: countTokens(JSON.stringify({ tools })), names: tools.map((t) => t.name) };
}

export function renderToolsetTable(): string {
  const core = listed(new Set());
  const rows = [
    '| `?toolsets=` | tools listed | tokens | added to the core |',
    '|---|---:|---:|---|',
    `| (none) / \`core\` | ${core.tools} | ${fmt(core.tokens)} | ${[...CORE_TOOLS].join(', ')} |`,
  ];
  for (const name of toolsetNames(allTools())) {
    const set = listed(new Set([name]));
    const added = set.names.filter((n) => !CORE_TOOLS.has(n));
    rows.push(`| \`${name}\` | ${set.tools} | ${fmt(set.tokens)} | ${added.length ? added.join(', ') : 'nothing: its tools are all in the core'} |`);
  }
  const all = listed('all');
  rows.push(`| \`all\` | ${all.tools} | ${fmt(all.tokens)} | every tool |`);
  return rows.join('\n');
}

export function renderAgentCardFigures(): string {
  const card = JSON.stringify(buildAgentCard('http://localhost:8080', packageVersion()));
  return `The agent card (\`/.well-known/agent-card.json\`) lists ${buildAgentCard('http://localhost:8080', packageVersion()).skills.length} skills in ${fmt(Buffer.byteLength(card))} bytes of compact JSON, about ${fmt(countTokens(card))} \`o200k_base\` tokens.`;
}

/** Each generated block, by the doc and marker name it lives under. */
export const FIGURES: { doc: string; marker: string; render: () => string }[] = [
  { doc: 'docs/clients.md', marker: 'toolsets', render: renderToolsetTable },
  { doc: 'docs/clients.md', marker: 'agent-card', render: renderAgentCardFigures },
  { doc: 'docs/architecture.md', marker: 'domain-areas', render: renderDomainAreas },
];

/** The doc's text with the block between `<!-- marker:start -->` and `<!-- marker:end -->` replaced. */
export function withBlock(doc: string, marker: string, body: string, file: string): string {
  const start = `<!-- ${marker}:start -->`;
  const end = `<!-- ${marker}:end -->`;
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${file}: markers ${start} … ${end} not found`);
  return `${doc.slice(0, a + start.length)}\n${body}\n${doc.slice(b)}`;
}

export function renderDoc(file: string): string {
  let text = readFileSync(join(packageRoot(), file), 'utf8');
  for (const f of FIGURES.filter((x) => x.doc === file)) text = withBlock(text, f.marker, f.render(), file);
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of new Set(FIGURES.map((f) => f.doc))) writeFileSync(join(packageRoot(), file), renderDoc(file));
}
