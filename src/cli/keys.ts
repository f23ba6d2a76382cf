import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/accounts/apiKeys.js';
import { createUser } from '../domain/accounts/users.js';
import { isPlan } from '../auth/plans.js';
import { openStore } from '../store/index.js';

const USAGE = `usage: npm run keys -- <command> [options]
  create --plan free|pro|team|enterprise [--name NAME] [--email EMAIL]   new user with a key (printed once)
  list --user USER_ID                                                    keys of a user
  revoke --user USER_ID --key KEY_ID                                     revoke a key`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { plan: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, user: { type: 'string' }, key: { type: 'string' } },
});

const db = await openStore(loadConfig());
try {
  switch (positionals[0]) {
    case 'create': {
      const plan = values.plan ?? 'free';
      if (!isPlan(plan)) throw new Error(`unknown plan '${plan}'`);
      const user = await createUser(db, { plan, name: values.name ?? null, email: values.email ?? null });
      const { key, row } = await createApiKey(db, { userId: user.id, plan, name: values.name ?? '' });
      process.stdout.write(JSON.stringify({ user_id: user.id, key_id: row.key_id, plan, key }, null, 2) + '\n');
      break;
    }
    case 'list':
      if (!values.user) throw new Error('--user is required');
      process.stdout.write(JSON.stringify(await listApiKeys(db, values.user), null, 2) + '\n');
      break;
    case 'revoke': {
      if (!values.user || !values.key) throw new Error('--user and --key are required');
      const outcome = await revokeApiKey(db, values.user, values.key);
      process.stdout.write(outcome.kind + '\n');
      break;
    }
    default:
      process.stdout.write(USAGE + '\n');
      process.exitCode = positionals[0] ? 2 : 0;
  }
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
  process.exitCode = 2;
} finally {
  await db.close();
}
