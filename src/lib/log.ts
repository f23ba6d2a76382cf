import { nowIso } from './time.js';
/** One-line JSON logs on stderr. Callers never pass secrets (keys, tokens, request bodies). */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(enabled = true): Logger {
  const write = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (enabled) process.stderr.write(JSON.stringify({ t: nowIso(), level, msg, ...fields }) + '\n');
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
