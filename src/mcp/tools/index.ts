import type { ToolDefinition } from '../tool.js';
import { advisoryTools } from './advisory.js';
import { analyticsTools } from './analytics.js';
import { generalTools } from './general.js';
import { helpTools } from './help.js';

/** Every MCP tool that works today; docs/tools.md shows the rest of the spec's catalogue. */
export const TOOLS: ToolDefinition<any>[] = [...helpTools, ...generalTools, ...advisoryTools, ...analyticsTools];
