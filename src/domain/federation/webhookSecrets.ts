// Webhook signing secrets at rest, sealed like customers' provider keys: AES-256-GCM (SecretBox),
// the additional data binding a sealed secret to its webhook's id. The secret must be kept (each
// delivery is signed with it), so it is sealed, not hashed. Stored as "sealed:<key>:<box>", <key>
// naming the key that sealed it:
//   server  — PROVIDER_KEY_SECRET, when set: kept out of the database, so a dump or a backup alone
//             does not open the secrets (the production setting, docs/reliability.md);
//   install — otherwise, a random key made at first use and kept in the database (kb_secrets, as the
//             upload-URL key is), so webhooks work on a fresh install and on every instance alike;
//             it keeps secrets out of query results, exports of the table, logs and screenshots, not
//             out of a full dump of the database.
// startWebhookSealing (at start) seals what an earlier version stored in plain text and re-seals
// "install" secrets with the server key once one is configured.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../lib/log.js';
import { SecretBox } from '../../providers/llm/secretBox.js';
import type { Queryable } from '../../store/db.js';

type KeyName = 'server' | 'install';

const PREFIX = 'sealed:';
const INSTALL_KEY_NAME = 'webhook_seal';

/** The server key registered for a database (startWebhookSealing); absent = none. */
const serverKeys = new WeakMap<object, SecretBox>();
const installKeys = new WeakMap<object, Promise<SecretBox>>();

const aad = (webhookId: string) => `webhook:${webhookId}`;

/** The installation key, made once in the database so every instance seals alike. */
function installBox(db: Queryable): Promise<SecretBox> {
  let box = installKeys.get(db);
  if (!box) {
    box = (async () => {
      await db.query(`insert into kb_secrets (name, value) values ($1, $2) on conflict (name) do nothing`, [INSTALL_KEY_NAME, randomBytes(32)]);
      const [row] = await db.query<{ value: Uint8Array }>('select value from kb_secrets where name = $1', [INSTALL_KEY_NAME]);
      return new SecretBox(Buffer.from(row!.value));
    })();
    box.catch(() => installKeys.delete(db));
    installKeys.set(db, box);
  }
  return box;
}

const preferred = (db: Queryable): KeyName => (serverKeys.has(db) ? 'server' : 'install');

async function boxFor(db: Queryable, name: KeyName): Promise<SecretBox> {
  if (name === 'install') return installBox(db);
  const box = serverKeys.get(db);
  if (!box) throw new Error('this webhook secret was sealed with PROVIDER_KEY_SECRET, which this server does not have');
  return box;
}

export async function sealWebhookSecret(db: Queryable, webhookId: string, secret: string): Promise<string> {
  const name = preferred(db);
  return `${PREFIX}${name}:${(await boxFor(db, name)).seal(secret, aad(webhookId))}`;
}

/** The signing secret of a stored row; a plain value an earlier version stored comes back as it is. */
export async function openWebhookSecret(db: Queryable, webhookId: string, stored: string): Promise<string> {
  if (!stored.startsWith(PREFIX)) return stored;
  const [name, box] = [stored.slice(PREFIX.length, stored.indexOf(':', PREFIX.length)), stored.slice(stored.indexOf(':', PREFIX.length) + 1)];
  if (name !== 'server' && name !== 'install') throw new Error(`webhook secret sealed with an unknown key '${name}'`);
  return (await boxFor(db, name)).open(box, aad(webhookId));
}

/**
 * Registers the server key for `db` (null: none, the installation key seals) and seals every stored
 * secret with the preferred key: plain ones from before, "install" ones once a server key exists.
 * Each row is rewritten only if it still holds what was read, so instances starting together agree.
 * A secret that cannot be opened (sealed with a server key this process lacks) is left and logged.
 */
export async function startWebhookSealing(db: Queryable, serverKey: Buffer | null, log: Pick<Logger, 'warn' | 'info'>): Promise<number> {
  if (serverKey) serverKeys.set(db, new SecretBox(serverKey));
  else serverKeys.delete(db);
  const want = `${PREFIX}${preferred(db)}:`;
  const rows = await db.query<{ id: string; secret: string }>('select id, secret from user_webhooks where secret not like $1', [`${want}%`]);
  let sealed = 0;
  for (const row of rows) {
    let plain: string;
    try {
      plain = await openWebhookSecret(db, row.id, row.secret);
    } catch (err) {
      log.warn('webhook secret cannot be opened; its deliveries fail until the webhook is made again', { webhook_id: row.id, error: (err as Error).message });
      continue;
    }
    const next = await sealWebhookSecret(db, row.id, plain);
    sealed += (await db.query('update user_webhooks set secret = $3 where id = $1 and secret = $2 returning id', [row.id, row.secret, next])).length;
  }
  if (sealed > 0) log.info('webhook secrets sealed', { count: sealed, key: preferred(db) });
  return sealed;
}
