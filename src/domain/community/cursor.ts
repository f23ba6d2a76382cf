import { invalidInput } from '../errors.js';

/** Opaque list cursors: the next offset, base64url-encoded. */
export function encodeCursor(offset: number): string {
  return Buffer.from(String(offset)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, field = 'cursor'): number {
  if (!cursor) return 0;
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{1,8}$/.test(raw)) throw invalidInput('invalid cursor', [{ loc: [field], msg: 'invalid cursor', type: 'value_error.cursor' }]);
  return Number(raw);
}

export function nextCursor(offset: number, returned: number, total: number): string | null {
  return offset + returned < total ? encodeCursor(offset + returned) : null;
}
