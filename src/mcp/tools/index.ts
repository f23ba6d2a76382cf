import type { ToolDefinition } from '../tool.js';
import { advisoryTools } from './advice/advisory.js';
import { analyticsTools } from './account/analytics.js';
import { generalTools } from './compression/general.js';
import { keyTools } from './account/keys.js';
import { qualityTools } from './compression/quality.js';
import { textTools } from './compression/text.js';
import { knowledgeTools } from './knowledge/knowledge.js';
import { benchmarkTools } from './account/benchmarks.js';
import { compressionTools } from './compression/compression.js';
import { documentTools } from './knowledge/documents.js';
import { sessionTools } from './memory/session.js';
import { toonTools } from './compression/toon.js';
import { projectTools } from './account/projects.js';
import { codeIntelTools } from './code/codeIntel.js';
import { workflowTools } from './agents/workflows.js';
import { planTools } from './agents/plans.js';
import { federationTools } from './agents/federation.js';
import { memoryTools } from './memory/memory.js';
import { afmTools } from './memory/afm.js';
import { handoffTools } from './memory/handoff.js';
import { compiledKnowledgeTools } from './memory/compiledKnowledge.js';
import { proxyTools } from './agents/proxy.js';
import { skillTools } from './agents/skills.js';
import { webTools } from './knowledge/web.js';
import { docsLookupTools } from './knowledge/docsLookup.js';
import { ingestTools } from './knowledge/ingest.js';
import { aceTools } from './memory/ace.js';
import { promptTools } from './agents/prompts.js';
import { batchQueueTools } from './knowledge/batchQueue.js';
import { cacheAdvisoryTools } from './advice/cacheAdvisory.js';
import { compressionInsightTools } from './compression/compressionInsight.js';
import { providerAdviceTools } from './advice/providerAdvice.js';

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
  // Issue 22's: prompt-cache advisory, provider/context/resource advice, compression insight.
  ...cacheAdvisoryTools,
  ...providerAdviceTools,
  ...compressionInsightTools,
];
