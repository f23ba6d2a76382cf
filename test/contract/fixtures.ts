// One server for the whole contract suite, the owner (Enterprise, admin) as caller, and the shared
// fixtures most areas need. Area-specific fixtures live in the area's file (its `setup`, or the
// request function of the one entry that needs them).
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { signPaymentPayload } from '../../src/domain/commerce/payments.js';
import { jwtConfig, startIdp, type TestIdp } from '../accounts/helpers.js';
import { connectMcp } from '../helpers/mcp.js';
import { sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';
import { loadConfig } from '../../src/config.js';

/** The SDK-built MCP server proxy_mcp_server's sample calls go to, over stdio. */
const UPSTREAM_MCP = fileURLToPath(new URL('../fixtures/mcp/upstream.mjs', import.meta.url));
import type { ContractContext, Method } from './contract.js';

export const PAYMENT_SECRET = 'x402-contract-secret';

export interface ContractRun {
  context: ContractContext;
  close(): Promise<void>;
}

export async function startContractRun(): Promise<ContractRun> {
  const idp: TestIdp = await startIdp();
  const internalToken = randomBytes(16).toString('hex');
  const identityWebhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  let server: TestServer | null = null;
  const clients: Client[] = [];
  try {
    server = await startTestServer(
      { ...jwtConfig(idp), internalToken, mcpProxy: { ...loadConfig({}).mcpProxy, stdioServers: { fixture: { command: process.execPath, args: [UPSTREAM_MCP, 'stdio'] } } } },
      { commerce: { identityWebhookSecret, paymentSecrets: { x402: PAYMENT_SECRET, stripe_acp: null, skyfire: null }, outboxPollMs: 50 } },
    );
    const s = server;
    const db = s.app.services.db;
    const [owner] = await db.query<{ id: string }>('select id from users where is_admin order by created_at limit 1');

    const ok = async (method: Method, path: string, body?: unknown, key?: string | null) => {
      const res = await s.request(method, path, { body, key });
      if (res.status < 200 || res.status > 299) throw new Error(`fixture ${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
      return res.json;
    };

    const fx: Record<string, any> = {};
    const project = await ok('POST', '/v1/projects', { name: 'contract-project', description: 'contract suite fixtures' });
    fx.project_id = project.project_id ?? project.id;
    const projectKey = (await createApiKey(db, { userId: owner!.id, plan: 'enterprise', name: 'contract-project-key', projectId: fx.project_id })).key;

    const owned = await connectMcp(s.url, s.ownerKey, 'contract-owner');
    clients.push(owned);
    const bound = await connectMcp(s.url, projectKey, 'contract-project');
    clients.push(bound);
    const mcp = (key: 'owner' | 'project') => (key === 'project' ? bound : owned);

    const tool = async (name: string, args: Record<string, unknown>, key: 'owner' | 'project' = 'owner') => {
      const result = await mcp(key).callTool({ name, arguments: args });
      const data = result.structuredContent ?? JSON.parse((result.content as { text: string }[])[0]!.text);
      if (result.isError) throw new Error(`fixture tool ${name} failed: ${JSON.stringify(data).slice(0, 300)}`);
      return data;
    };

    const context: ContractContext = {
      server: s,
      ownerKey: s.ownerKey,
      ownerId: owner!.id,
      projectKey,
      fx,
      internalToken,
      identityWebhookSecret,
      jwt: (sub, claims = { plan: 'pro' }) => idp.sign(claims, { sub }),
      ok,
      tool,
      mcp,
      async user(plan, name) {
        const user = await createUser(db, { plan, name });
        const { key, row } = await createApiKey(db, { userId: user.id, plan, name: `${name}-key` });
        return { userId: user.id, key, keyId: row.key_id };
      },
    };

    // Usage: a compression over REST that carries payment-signature headers (a usage event and a
    // payment event), compressed hard enough that the original is preserved (original_id).
    const compressed = await s.request('POST', '/v1/compress', {
      body: { text: sampleDocument(), fidelity: 'abstract' },
      headers: {
        'x-payment-facilitator': 'x402',
        'x-payment-signature': signPaymentPayload({ payment_id: `pay_contract_${randomBytes(4).toString('hex')}`, amount_micros: 2500 }, PAYMENT_SECRET),
      },
    });
    if (compressed.status !== 200) throw new Error(`fixture compress answered ${compressed.status}: ${compressed.text.slice(0, 300)}`);
    fx.original_id = compressed.json.original_id;
    // The same request again is a semantic-cache candidate: /v1/compress's entry repeats it.
    fx.compress_body = { text: sampleDocument(), fidelity: 'balanced' };
    await ok('POST', '/v1/compress', fx.compress_body);

    // Knowledge Hub: one item with two versions, indexed (queries must return chunks).
    const item = await ok('POST', `/v1/projects/${fx.project_id}/knowledge/items`, { name: 'contract-item', content: sampleDocument(), metadata: { area: 'contract' } });
    fx.item_id = item.item_id;
    fx.version_id = item.current_version_id ?? item.version_id;
    const edited = await ok('PATCH', `/v1/projects/${fx.project_id}/knowledge/items/${fx.item_id}`, {
      content: `${sampleDocument()}\n\n## Appendix\n\nThe connection pool queues requests when every worker is busy.`,
      base_version_id: fx.version_id,
    });
    fx.version_id_2 = edited.current_version_id;
    await s.app.services.knowledge.idle();

    // An ingested document for the document tools.
    const doc = await tool('ingest_context', { text: sampleDocument(), name: 'contract-doc', file_path: 'docs/contract.md' });
    fx.file_id = doc.file_id;

    await s.app.services.background.drain();
    for (const [k, v] of Object.entries(fx)) if (v === undefined || v === null) throw new Error(`shared fixture ${k} was not created`);

    return {
      context,
      async close() {
        for (const c of clients) await c.close().catch(() => undefined);
        await s.close();
        await idp.close();
      },
    };
  } catch (err) {
    for (const c of clients) await c.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await idp.close();
    throw err;
  }
}
