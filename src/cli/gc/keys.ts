// `gc keys …`: API keys. Against a server (GC_URL, GC_KEY) through /v1/keys for the caller's own keys;
// locally, straight on the service's database (DATABASE_URL or DATA_DIR), as the operator: a new user
// with a key, a user's keys, revoking one (what `npm run keys` did; src/cli/keys.ts now calls this).
import { call } from './client.js';
import { CliError, EXIT, modeOf, note, printJson, table, type GlobalOptions } from './common.js';

export interface KeyOptions {
  plan?: string;
  name?: string;
  email?: string;
  user?: string;
  key?: string;
  graceDays?: string;
}

async function withStore<T>(fn: (db: import('../../store/db.js').Db) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { openStore }, { acquireDataDirLockFor, DataDirLockedError }] = await Promise.all([
    import('../../config.js'),
    import('../../store/index.js'),
    import('../../store/dataDirLock.js'),
  ]);
  const config = loadConfig();
  // An embedded database folder has one owner at a time (src/store/dataDirLock.ts): writing beside a
  // running server would be lost, so the command refuses and says how to go through the server.
  let lock: Awaited<ReturnType<typeof acquireDataDirLockFor>>;
  try {
    lock = await acquireDataDirLockFor(config, 'cli');
  } catch (err) {
    if (err instanceof DataDirLockedError) throw new CliError(lockedAdvice(err), EXIT.unavailable);
    throw err;
  }
  try {
    const db = await openStore(config);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  } finally {
    lock?.release();
  }
}

/** What to do when the folder is held: stop the holder, or (a server) use its API. */
function lockedAdvice(err: import('../../store/dataDirLock.js').DataDirLockedError): string {
  const { holder } = err;
  if (holder.role === 'server' && holder.pid > 0) {
    const url = `http://localhost:${holder.port ?? 8080}`;
    return (
      `${err.message}. Stop the server first, or go through its API: ` +
      `GC_URL=${url} GC_KEY=<your key> gc keys create|list|revoke|rotate (keys of that key's own account)`
    );
  }
  return `${err.message}. Wait for it to finish, or stop it, and run the command again.`;
}

/** The operator's commands on the database (no server). */
export async function localKeys(command: string, keyId: string | undefined, opts: KeyOptions): Promise<unknown> {
  const [{ createApiKey, listApiKeys, revokeApiKey }, { createUser }, { isPlan }] = await Promise.all([
    import('../../domain/identity/apiKeys.js'),
    import('../../domain/identity/users.js'),
    import('../../auth/plans.js'),
  ]);
  switch (command) {
    case 'create': {
      const plan = opts.plan ?? 'free';
      if (!isPlan(plan)) throw new CliError(`unknown plan '${plan}' (free, pro, team, enterprise)`, EXIT.usage);
      return withStore(async (db) => {
        const user = await createUser(db, { plan, name: opts.name ?? null, email: opts.email ?? null });
        const { key, row } = await createApiKey(db, { userId: user.id, plan, name: opts.name ?? '' });
        return { user_id: user.id, key_id: row.key_id, plan, key };
      });
    }
    case 'list':
      if (!opts.user) throw new CliError('--user USER_ID is required without a server', EXIT.usage);
      return withStore((db) => listApiKeys(db, opts.user!));
    case 'revoke': {
      const id = keyId ?? opts.key;
      if (!opts.user || !id) throw new CliError('KEY_ID and --user USER_ID are required without a server', EXIT.usage);
      const outcome = await withStore((db) => revokeApiKey(db, opts.user!, id));
      if (outcome.kind === 'not-found') throw new CliError(`no key ${id} for user ${opts.user}`, EXIT.usage);
      return { key_id: id, outcome: outcome.kind };
    }
    default:
      throw new CliError(`'${command}' needs a server (set GC_URL and GC_KEY)`, EXIT.usage);
  }
}

export async function keysCommand(command: string, keyId: string | undefined, opts: KeyOptions, global: GlobalOptions): Promise<number> {
  const mode = modeOf(global);
  let result: any;
  if (mode.kind === 'local') result = await localKeys(command, keyId, opts);
  else {
    const need = () => {
      if (!keyId) throw new CliError(`gc keys ${command} KEY_ID`, EXIT.usage);
      return encodeURIComponent(keyId);
    };
    switch (command) {
      case 'list':
        result = await call(mode, 'GET', '/v1/keys');
        break;
      case 'create':
        result = await call(mode, 'POST', '/v1/keys', { name: opts.name ?? '' });
        break;
      case 'revoke':
        result = await call(mode, 'DELETE', `/v1/keys/${need()}`);
        break;
      case 'rotate':
        result = await call(mode, 'POST', `/v1/keys/${need()}/rotate`, opts.graceDays ? { grace_period_days: Number(opts.graceDays) } : {});
        break;
      default:
        throw new CliError(`unknown keys command '${command}' (list, create, revoke, rotate)`, EXIT.usage);
    }
  }
  if (global.json) printJson(result);
  else if (command === 'list') {
    const keys: any[] = Array.isArray(result) ? result : (result.keys ?? []);
    table([['key_id', 'name', 'plan', 'status', 'created_at'], ...keys.map((k) => [k.key_id, k.name ?? '', k.plan ?? '', k.status ?? '', String(k.created_at ?? '')])]);
  } else {
    printJson(result);
    if (result?.key) note('The key is shown once: store it now.');
  }
  return EXIT.ok;
}
