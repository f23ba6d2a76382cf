import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { getPreservedOriginal, listPreservedOriginals } from '../domain/compression/originals.js';
import { currentContent } from '../domain/knowledge/service.js';
import { getVisibleItem, resolveProject, visibleItemIds } from '../domain/knowledge/items.js';
import type { Services } from '../services.js';
import { PROMPT_ARGUMENT_VALUES } from './prompts.js';
import type { Caller } from './caller.js';
import { iso } from '../lib/time.js';

/** MCP's "resource not found" code (the spec's recommendation; not in the SDK's ErrorCode enum). */
const RESOURCE_NOT_FOUND = -32002;
const ORIGINAL = 'gc://originals/{original_id}';
const ITEM = 'gc://knowledge/items/{item_id}';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LIST_LIMIT = 50;

const TEMPLATES = [
  { uriTemplate: ORIGINAL, name: 'preserved-original', title: 'Preserved original', mimeType: 'text/plain', description: 'The full text a compression preserved (original_id from its response).' },
  { uriTemplate: ITEM, name: 'knowledge-item', title: 'Knowledge Hub item', mimeType: 'text/plain', description: "The current content of an item of the key's project." },
];

const notFound = (uri: string) => new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });

/**
 * Preserved originals and Knowledge Hub items as MCP resources, owner-scoped like their tools: another
 * user's id, or an item outside the key's project, reads as not found. completion/complete offers the
 * caller's own ids for the templates' arguments, and the allowed values of prompt arguments.
 */
export function registerResources(server: Server, services: Services, caller: Caller): void {
  const project = async () => {
    const { principal } = caller;
    if (!principal.projectId) return null;
    return (await resolveProject(services.db, principal, principal.projectId).catch(() => null))?.id ?? null;
  };

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: TEMPLATES }));

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const { principal } = caller;
    const originals = await listPreservedOriginals(services.db, principal.userId, { limit: LIST_LIMIT });
    const projectId = await project();
    const items = projectId ? await visibleItemIds(services.db, principal, projectId, { limit: LIST_LIMIT }) : [];
    return {
      resources: [
        ...originals.map((o) => ({ uri: `gc://originals/${o.id}`, name: `original ${o.id}`, mimeType: 'text/plain', description: `${o.content_tokens} tokens, preserved ${iso(o.created_at)}` })),
        ...items.map((i) => ({ uri: `gc://knowledge/items/${i.id}`, name: i.name ?? `item ${i.id}`, mimeType: 'text/plain' })),
      ],
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const { principal } = caller;
    const original = /^gc:\/\/originals\/([^/?#]+)$/.exec(uri)?.[1];
    if (original !== undefined) {
      const row = UUID.test(original) ? await getPreservedOriginal(services.db, principal.userId, original) : null;
      if (!row) throw notFound(uri);
      return { contents: [{ uri, mimeType: 'text/plain', text: row.content }] };
    }
    const itemId = /^gc:\/\/knowledge\/items\/([^/?#]+)$/.exec(uri)?.[1];
    if (itemId !== undefined) {
      const projectId = await project();
      const item = projectId ? await getVisibleItem(services.db, principal, projectId, itemId) : null;
      if (!item) throw notFound(uri);
      return { contents: [{ uri, mimeType: 'text/plain', text: await currentContent(services, item) }] };
    }
    throw new McpError(ErrorCode.InvalidParams, `Unknown resource URI ${uri}: resources are ${ORIGINAL} and ${ITEM}`);
  });

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params;
    const none = { completion: { values: [] as string[], hasMore: false } };
    if (ref.type === 'ref/prompt') {
      const values = (PROMPT_ARGUMENT_VALUES[ref.name]?.[argument.name] ?? []).filter((v) => v.startsWith(argument.value));
      return { completion: { values, total: values.length, hasMore: false } };
    }
    if (ref.type !== 'ref/resource') return none;
    const { principal } = caller;
    let ids: string[] = [];
    if (ref.uri === ORIGINAL && argument.name === 'original_id') {
      ids = (await listPreservedOriginals(services.db, principal.userId, { prefix: argument.value, limit: 101 })).map((o) => o.id);
    } else if (ref.uri === ITEM && argument.name === 'item_id') {
      const projectId = await project();
      ids = projectId ? (await visibleItemIds(services.db, principal, projectId, { prefix: argument.value, limit: 101 })).map((i) => i.id) : [];
    }
    return { completion: { values: ids.slice(0, 100), total: ids.length > 100 ? undefined : ids.length, hasMore: ids.length > 100 } };
  });
}
