// A project's LLM providers: which API, where, which default model, and the customer's key, sealed.
// The key is written once and never read back out to any caller; it is opened only to call the provider.
import type { Principal } from '../../auth/principal.js';
import { DEFAULT_BASE_URLS, type ChatMessage, type ChatResult, type LlmApi, type LlmClient } from '../../providers/llm/index.js';
import { costMicros, priceFor, type PriceEntry } from '../../providers/llm/prices.js';
import { LOCAL_MODEL } from '../../providers/llm/localServer.js';
import type { Services } from '../../services.js';
import type { Queryable } from '../../store/db.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { FetchRefusedError, hostKey, vetHost } from '../platform/ssrf.js';
import { iso } from '../../lib/time.js';

export const PROVIDER_APIS = ['openai', 'anthropic', 'local'] as const;
export type ProviderApi = (typeof PROVIDER_APIS)[number];
export const DEFAULT_PROVIDER = 'default';

export interface ProviderRow {
  project_id: string;
  name: string;
  api: ProviderApi;
  base_url: string | null;
  default_model: string | null;
  key_sealed: string | null;
  created_by_key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ProviderInput {
  name: string;
  api: ProviderApi;
  base_url?: string | null;
  api_key?: string | null;
  default_model?: string | null;
}

/** The public view: never the key, only whether one is stored. */
export function providerResponse(row: ProviderRow) {
  return {
    name: row.name,
    api: row.api,
    base_url: row.base_url,
    default_model: row.default_model,
    has_key: row.key_sealed !== null,
    updated_at: iso(row.updated_at),
  };
}

const keyStorageOff = () =>
  new DomainError('unavailable', 'Provider keys cannot be stored: this server has no PROVIDER_KEY_SECRET configured', { code: 'key_storage_not_configured' });

const aad = (projectId: string, name: string) => `llm_providers:${projectId}:${name}`;

/**
 * A customer's base URL is an outbound request target: https to a public address, or a host the
 * operator allowed (LLM_ALLOWED_HOSTS, e.g. a vLLM on the private network, where http is accepted).
 */
export function checkBaseUrl(services: Services, raw: string): { url: URL; allowed: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('base_url is not a valid URL');
  }
  if (url.username || url.password) throw invalid('base_url must not carry credentials');
  if (url.search || url.hash) throw invalid('base_url must not carry a query or fragment');
  const allowed = services.config.llm.allowedHosts.includes(hostKey(url));
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:')) {
    throw invalid(`fetch_refused: base_url must be https (http only for hosts in LLM_ALLOWED_HOSTS), not ${url.protocol.replace(/:$/, '')}`, { code: 'fetch_refused' });
  }
  return { url, allowed };
}

/** Resolver for the client: vets every address (no private, loopback or metadata targets) and pins the connection to it. */
function vettedResolver(allowed: boolean) {
  if (allowed) return undefined;
  return async (host: string) => {
    try {
      return await vetHost(host);
    } catch (err) {
      if (err instanceof FetchRefusedError) throw new Error(`fetch_refused: ${err.message}`);
      throw err;
    }
  };
}

export async function getProvider(db: Queryable, projectId: string, name: string): Promise<ProviderRow | null> {
  const [row] = await db.query<ProviderRow>('select * from llm_providers where project_id = $1 and name = $2', [projectId, name]);
  return row ?? null;
}

/** Registers or replaces a provider. A key needs the server's sealing key; `local` needs the local server. */
export async function setProvider(services: Services, principal: Principal, projectId: string, input: ProviderInput): Promise<{ row: ProviderRow; created: boolean }> {
  const { llm } = services;
  let baseUrl: string | null = null;
  if (input.api === 'local') {
    if (!llm.localBaseUrl) throw invalid('The local provider is not running on this server (LLM_LOCAL_SERVER=off)');
    if (input.api_key) throw invalid('The local provider takes no api_key');
  } else {
    baseUrl = (input.base_url ?? DEFAULT_BASE_URLS[input.api]).replace(/\/+$/, '');
    const { url, allowed } = checkBaseUrl(services, baseUrl);
    if (!allowed) {
      try {
        await vetHost(url.hostname);
      } catch (err) {
        if (err instanceof FetchRefusedError && err.reason === 'address') throw invalid(`fetch_refused: ${err.message}`, { code: 'fetch_refused' });
        // An unresolvable name today may resolve tomorrow: it is checked again before every call.
      }
    }
  }
  let sealed: string | null = null;
  if (input.api_key) {
    if (!llm.box) throw keyStorageOff();
    sealed = llm.box.seal(input.api_key, aad(projectId, input.name));
  }
  const [row] = await services.db.query<ProviderRow & { inserted: boolean }>(
    `insert into llm_providers (project_id, name, api, base_url, default_model, key_sealed, created_by_key_id)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (project_id, name) do update set api = excluded.api, base_url = excluded.base_url,
       default_model = excluded.default_model, key_sealed = excluded.key_sealed, updated_at = now()
     returning *, (xmax = 0) as inserted`,
    [projectId, input.name, input.api, baseUrl, input.default_model ?? null, sealed, principal.keyId],
  );
  const { inserted, ...rest } = row!;
  return { row: rest as ProviderRow, created: !!inserted };
}

export async function listProviders(db: Queryable, projectId: string): Promise<ProviderRow[]> {
  return db.query<ProviderRow>('select * from llm_providers where project_id = $1 order by name', [projectId]);
}

export async function deleteProvider(db: Queryable, projectId: string, name: string): Promise<void> {
  const rows = await db.query('delete from llm_providers where project_id = $1 and name = $2 returning name', [projectId, name]);
  if (!rows.length) throw notFound(`Provider '${name}' not found`);
}

export interface ResolvedProvider {
  name: string;
  api: ProviderApi;
  client: LlmClient;
  /** The model to use when the node names none. */
  defaultModel: string | null;
  /** Which price-table api the model is priced under. */
  priceApi: string;
}

/**
 * The client for a project's provider. The default provider falls back to the local server when the
 * project registered none (so a fresh set-up runs workflows without any outside account).
 */
export async function resolveProvider(services: Services, projectId: string, name: string): Promise<ResolvedProvider> {
  const { llm } = services;
  const row = await getProvider(services.db, projectId, name);
  if (!row) {
    if (name === DEFAULT_PROVIDER && llm.localBaseUrl) {
      return { name, api: 'local', client: llm.client('openai', llm.localBaseUrl, null), defaultModel: LOCAL_MODEL, priceApi: 'local' };
    }
    throw invalid(`No LLM provider '${name}' is registered for this project (gc_provider_set)`);
  }
  if (row.api === 'local') {
    if (!llm.localBaseUrl) throw invalid('The local provider is not running on this server');
    return { name, api: 'local', client: llm.client('openai', llm.localBaseUrl, null), defaultModel: row.default_model ?? LOCAL_MODEL, priceApi: 'local' };
  }
  let apiKey: string | null = null;
  if (row.key_sealed) {
    if (!llm.box) throw keyStorageOff();
    try {
      apiKey = llm.box.open(row.key_sealed, aad(projectId, row.name));
    } catch {
      throw invalid(`The stored key of provider '${name}' cannot be opened with this server's PROVIDER_KEY_SECRET; set the provider again`);
    }
  }
  const { allowed } = checkBaseUrl(services, row.base_url!);
  return {
    name,
    api: row.api,
    client: llm.client(row.api as LlmApi, row.base_url!, apiKey, vettedResolver(allowed)),
    defaultModel: row.default_model,
    priceApi: row.api,
  };
}

export interface Completion extends ChatResult {
  provider: string;
  api: ProviderApi;
  /** The price-table entry used, or null (model not priced: cost unknown). */
  price: PriceEntry | null;
  /** Micro-dollars from the response's usage and the dated price; null when either is unknown. */
  costMicros: number | null;
}

/**
 * One call to a project's provider, with its cost: the use case later features (memory, ACE,
 * experiments) call too. The caller decides whether a call is allowed (the run's provider-call limit).
 */
export async function complete(
  services: Services,
  projectId: string,
  request: { provider: string; model?: string; messages: ChatMessage[]; maxTokens: number; temperature?: number; stream?: boolean; signal?: AbortSignal },
  resolved?: ResolvedProvider,
): Promise<Completion> {
  const provider = resolved ?? (await resolveProvider(services, projectId, request.provider));
  const model = request.model ?? provider.defaultModel;
  if (!model) throw invalid(`No model given and provider '${request.provider}' has no default_model`);
  const r = await provider.client.chat({ model, messages: request.messages, maxTokens: request.maxTokens, temperature: request.temperature, stream: request.stream, signal: request.signal });
  const price = priceFor(services.llm.prices, provider.priceApi, model);
  return { ...r, provider: provider.name, api: provider.api, price, costMicros: costMicros(price, r.inputTokens, r.outputTokens) };
}
