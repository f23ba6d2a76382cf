import type { ToolDefinition } from '../tool.js';
import { advisoryTools } from './advisory.js';
import { analyticsTools } from './analytics.js';
import { generalTools } from './general.js';
import { keyTools } from './keys.js';
import { qualityTools } from './quality.js';
import { textTools } from './text.js';
import { knowledgeTools } from './knowledge.js';
import { benchmarkTools } from './benchmarks.js';
import { compressionTools } from './compression.js';
import { documentTools } from './documents.js';
import { sessionTools } from './session.js';
import { toonTools } from './toon.js';
import { projectTools } from './projects.js';
import { codeIntelTools } from './codeIntel.js';
import { workflowTools } from './workflows.js';
import { planTools } from './plans.js';
import { federationTools } from './federation.js';
import { memoryTools } from './memory.js';
import { afmTools } from './afm.js';
import { handoffTools } from './handoff.js';
import { compiledKnowledgeTools } from './compiledKnowledge.js';
import { proxyTools } from './proxy.js';
import { skillTools } from './skills.js';
import { webTools } from './web.js';
import { docsLookupTools } from './docsLookup.js';
import { ingestTools } from './ingest.js';
import { aceTools } from './ace.js';
import { promptTools } from './prompts.js';
import { batchQueueTools } from './batchQueue.js';
import { advisory2Tools } from './advisory2.js';

/** Every MCP tool that works today; docs/tools.md shows the rest of the spec's catalogue. */
export const TOOLS: ToolDefinition<any>[] = [...generalTools, ...advisoryTools, ...analyticsTools, ...textTools, ...qualityTools, ...keyTools,
  ...documentTools, ...compressionTools, ...toonTools, ...sessionTools, ...benchmarkTools, ...projectTools,
  ...knowledgeTools, ...codeIntelTools,
  ...workflowTools, ...planTools, ...federationTools,
  ...memoryTools, ...afmTools, ...handoffTools, ...compiledKnowledgeTools,
  ...proxyTools,
  ...skillTools,
  ...webTools,
  ...docsLookupTools,
  ...ingestTools,
  ...aceTools,
  ...promptTools,
  ...batchQueueTools,
  ...advisory2Tools,
];
