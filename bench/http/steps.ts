// Attributes CPU profile samples to the steps of a request (issue 49's cost table): each sample goes
// to the first step found walking from the sampled function up its stack. Leaf-level work that has a
// name of its own (JSON, hashing, GC) wins over the file that called it; otherwise the nearest of our
// own files names the step; what is left goes to the package or node subsystem that ran it.

export interface CallFrame {
  functionName: string;
  url: string;
}

// Own files (path under dist/) → step. First match wins; order from narrow to broad.
const OWN: [RegExp, string][] = [
  [/src\/http\/engine\//, 'HTTP engine adapter (src/http/engine)'],
  [/src\/http\/(jsonBody|io|validate)\./, 'body read + validation (src/http)'],
  [/src\/http\//, 'routing + response (src/http)'],
  [/src\/auth\/rateLimit/, 'rate limit'],
  [/src\/auth\//, 'authentication (src/auth)'],
  [/src\/domain\/metering\/(usage|usageJournal)\./, 'usage event'],
  [/src\/domain\/metering\/quota\./, 'quota check'],
  [/src\/domain\/(identity|metering|analytics|audit)\//, 'accounts other'],
  [/src\/domain\/compression\/originals\./, 'preserved original'],
  [/src\/domain\/compression\/markerStore\./, 'marker store'],
  [/src\/cache\//, 'semantic cache'],
  [/src\/pool\//, 'pool hand-off (src/pool)'],
  [/src\/domain\/compute\./, 'compute dispatch (src/domain/compute)'],
  [/src\/domain\/call\./, 'call orchestration (src/domain/call)'],
  [/src\/mcp\//, 'MCP layer (src/mcp)'],
  [/src\/routes\//, 'route handler (src/routes)'],
  [/src\/store\/pglite/, 'DB client (src/store/pglite*)'],
  [/src\/store\//, 'DB client (src/store)'],
  [/src\/metrics\//, 'metrics'],
  [/src\/lib\/log\./, 'logging'],
  [/workers\/|src\/domain\/compression\//, 'compression engine'],
  [/src\//, 'other own code'],
];

// Packages and node subsystems → step, for samples with no own frame on the way up.
const REST: [RegExp, string][] = [
  [/^wasm:\/\//, 'PGlite (wasm)'],
  [/node_modules\/@electric-sql\/pglite/, 'PGlite (js)'],
  [/node_modules\/(pg|pg-protocol|pg-pool|postgres)\//, 'pg driver'],
  [/node_modules\/piscina\//, 'pool hand-off (piscina)'],
  [/node_modules\/@modelcontextprotocol\//, 'MCP SDK'],
  [/node_modules\/zod\//, 'zod (schema validation)'],
  [/node_modules\/uWebSockets/, 'HTTP engine I/O (uWS)'],
  [/node:(_http|http|net|stream|internal\/(http|streams|stream_base|net))|^node:_/, 'HTTP engine I/O (node:http/net/streams)'],
  [/node:internal\/(worker|per_context\/messageport)|MessagePort/, 'thread messaging (node:worker_threads)'],
  [/node:internal\/(process\/task_queues|timers|async_hooks)/, 'event loop (ticks, timers)'],
  [/node_modules\//, 'other packages'],
  [/^node:/, 'node other'],
];

const SPECIFIC = REST.slice(0, -3);

const isJson = (f: CallFrame) => f.url === '' && /^(parse|stringify)$/.test(f.functionName);
const isHash = (f: CallFrame) => /internal\/crypto\/(hash|random)/.test(f.url) || (f.url === '' && /^(digest|update|createHash|Hash)$/.test(f.functionName));
const own = (f: CallFrame) => /\/dist\/(src|workers)\//.test(f.url);

/** The step of one sample, given its stack from the sampled function (index 0) to the root. */
export function stepOf(stack: CallFrame[]): string | null {
  const leaf = stack[0]!;
  if (leaf.functionName === '(idle)') return null;
  // A pool thread blocked in Atomics.wait (piscina's idle loop) is sampled as running JS: it is idle.
  if ((leaf.url === '' && leaf.functionName === 'wait') || leaf.functionName === 'atomicsWaitLoop') return null;
  if (leaf.functionName === '(garbage collector)') return 'GC';
  if (leaf.functionName === '(program)') return 'V8/native (program)';
  for (const f of stack) {
    if (own(f)) break;
    if (isJson(f)) return 'JSON parse/stringify';
    if (isHash(f)) return 'hashing (node:crypto)';
  }
  // The PostgreSQL driver's socket reads and writes are node:net too: they are the driver's, not HTTP's.
  if (stack.some((f) => /node_modules\/(pg|pg-protocol|pg-pool|postgres)\//.test(f.url))) return 'pg driver (incl. its socket I/O)';
  // The nearest own file or named subsystem: node:http writing a response for the router is I/O.
  for (const f of stack) {
    if (own(f)) {
      const path = /\/dist\/(.*)$/.exec(f.url)![1]!;
      return OWN.find(([re]) => re.test(path))![1];
    }
    const hit = SPECIFIC.find(([re]) => re.test(f.url));
    if (hit) return hit[1];
  }
  for (const f of stack) {
    const hit = REST.find(([re]) => re.test(f.url));
    if (hit) return hit[1];
  }
  return leaf.url === '' ? `native: ${leaf.functionName || '(anonymous)'}` : 'other';
}
