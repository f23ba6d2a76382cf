import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Plan } from '../../src/auth/plans.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { connectMcp } from './mcp.js';
import type { TestServer } from './server.js';

/** A new user on a plan, and an API key of theirs. */
export async function newKey(server: Pick<TestServer, 'app'>, plan: Plan): Promise<string> {
  const db = server.app.services.db;
  return (await createApiKey(db, { userId: (await createUser(db, { plan })).id, plan })).key;
}

/** An official SDK client for a new user on a plan. */
export async function connectAs(server: Pick<TestServer, 'app' | 'url'>, plan: Plan): Promise<Client> {
  return connectMcp(server.url, await newKey(server, plan));
}
