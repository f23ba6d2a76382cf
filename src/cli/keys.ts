// `npm run keys -- …`: kept for existing scripts; the commands are `gc keys` in local mode now
// (src/cli/gc/keys.ts), run here on the service's database.
import { parseArgs } from 'node:util';
import { CliError, EXIT } from './gc/common.js';
import { localKeys } from './gc/keys.js';

const USAGE = `usage: npm run keys -- <command> [options]   (also: gc keys …)
  create --plan free|pro|team|enterprise [--name NAME] [--email EMAIL]   new user with a key (printed once)
  list --user USER_ID                                                    keys of a user
  revoke --user USER_ID --key KEY_ID                                     revoke a key`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { plan: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, user: { type: 'string' }, key: { type: 'string' } },
});

const command = positionals[0];
if (command !== 'create' && command !== 'list' && command !== 'revoke') {
  process.stdout.write(USAGE + '\n');
  process.exitCode = command ? EXIT.usage : EXIT.ok;
} else {
  try {
    const result = await localKeys(command, values.key, values);
    // revoke printed the outcome's kind before; create and list print JSON as they did.
    process.stdout.write((command === 'revoke' ? (result as { outcome: string }).outcome : JSON.stringify(result, null, 2)) + '\n');
  } catch (err) {
    // The usage text helps after a wrong argument, not after a refusal (a held database folder).
    const usage = !(err instanceof CliError) || err.exitCode === EXIT.usage;
    process.stderr.write(`${(err as Error).message}\n${usage ? USAGE + '\n' : ''}`);
    process.exitCode = err instanceof CliError ? err.exitCode : EXIT.failure;
  }
}
