// Checks a response body against the fields a contract entry names; returns every mismatch.
import type { BaseType, FieldRule, Fields } from './contract.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

type Segment = { key: string; index?: number | 'each' };

/** `items[].name`, `results[1].error`, `buckets.free["<1h"]` into segments. */
export function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  const re = /(?:^|\.)([^.[\]"]+)|\["([^"]+)"\]|\[(\d*)\]/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(path))) {
    if (m.index !== consumed) throw new Error(`bad field path '${path}' at ${consumed}`);
    consumed = re.lastIndex;
    if (m[1] !== undefined) out.push({ key: m[1] });
    else if (m[2] !== undefined) out.push({ key: m[2] });
    else {
      const last = out[out.length - 1];
      if (!last || last.index !== undefined) throw new Error(`bad field path '${path}': [] must follow a name`);
      last.index = m[3] === '' ? 'each' : Number(m[3]);
    }
  }
  if (consumed !== path.length || out.length === 0) throw new Error(`bad field path '${path}'`);
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function matches(type: BaseType, value: unknown): boolean {
  switch (type) {
    case 'any':
      return true;
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'uuid':
      return typeof value === 'string' && UUID_RE.test(value);
    case 'timestamp':
      return typeof value === 'string' && ISO_RE.test(value) && !Number.isNaN(Date.parse(value));
    default:
      return typeof value === type;
  }
}

function describeRule(r: FieldRule): string {
  if (r.enum) return `one of ${r.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  return r.types.join(' or ') + (r.pattern ? ` matching ${r.pattern}` : '');
}

function checkValue(where: string, value: unknown, r: FieldRule): string | null {
  if (!r.types.some((type) => matches(type, value))) return `${where}: expected ${describeRule(r)}, got ${typeOf(value)} ${JSON.stringify(value)?.slice(0, 80)}`;
  if (r.enum && !r.enum.some((v) => v === value)) return `${where}: expected ${describeRule(r)}, got ${JSON.stringify(value)?.slice(0, 80)}`;
  if (r.pattern && typeof value === 'string' && !r.pattern.test(value)) return `${where}: expected ${describeRule(r)}, got ${JSON.stringify(value).slice(0, 80)}`;
  return null;
}

/** Every mismatch between `body` and `fields`, as readable lines (empty when the body conforms). */
export function checkFields(body: unknown, fields: Fields): string[] {
  const problems: string[] = [];
  for (const [path, r] of Object.entries(fields)) {
    const segments = parsePath(path);
    // Walk the path, fanning out over `[]`.
    let frontier: { where: string; value: unknown }[] = [{ where: '', value: body }];
    let missing = false;
    for (const seg of segments) {
      const next: { where: string; value: unknown }[] = [];
      for (const { where, value } of frontier) {
        const here = where ? `${where}.${seg.key}` : seg.key;
        if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.prototype.hasOwnProperty.call(value, seg.key)) {
          if (!r.optional) problems.push(`${here}: missing (expected ${describeRule(r)})`);
          missing = true;
          continue;
        }
        const v = (value as Record<string, unknown>)[seg.key];
        if (seg.index === undefined) {
          next.push({ where: here, value: v });
          continue;
        }
        if (!Array.isArray(v)) {
          problems.push(`${here}: expected an array, got ${typeOf(v)}`);
          missing = true;
          continue;
        }
        if (seg.index === 'each') {
          if (v.length === 0) problems.push(`${here}: empty array, so ${path} cannot be checked (make the sample request produce at least one element)`);
          v.forEach((el, i) => next.push({ where: `${here}[${i}]`, value: el }));
        } else if (seg.index >= v.length) {
          problems.push(`${here}[${seg.index}]: missing (array has ${v.length} elements)`);
          missing = true;
        } else {
          next.push({ where: `${here}[${seg.index}]`, value: v[seg.index] });
        }
      }
      frontier = next;
    }
    if (missing && r.optional) continue;
    for (const { where, value } of frontier) {
      const problem = checkValue(where, value, r);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}
