// Server mode: the REST API over fetch, its errors mapped to exit codes.
import { CliError, EXIT, USER_AGENT } from './common.js';

export interface Server {
  url: string;
  key: string | null;
}

function exitFor(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 429 || status === 503) return EXIT.unavailable;
  if (status >= 400 && status < 500) return EXIT.usage;
  return EXIT.failure;
}

const detailOf = (body: string) => {
  try {
    const d = (JSON.parse(body) as { detail?: unknown }).detail;
    return typeof d === 'string' ? d : JSON.stringify(d);
  } catch {
    return body.slice(0, 300);
  }
};

export async function send(server: Server, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  if (!server.key) throw new CliError('no API key: set GC_KEY (or pass --key)', EXIT.auth);
  let res: Response;
  try {
    res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${server.key}`, 'user-agent': USER_AGENT, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new CliError(`cannot reach ${server.url}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`, EXIT.unavailable);
  }
  if (!res.ok) throw new CliError(`${method} ${path}: ${res.status} ${detailOf(await res.text())}`, exitFor(res.status));
  return res;
}

export async function call<T = any>(server: Server, method: string, path: string, body?: unknown): Promise<T> {
  const res = await send(server, method, path, body);
  return (await res.json()) as T;
}

/** An NDJSON response, one parsed line at a time as it arrives. */
export async function* ndjson(res: Response): AsyncGenerator<any> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (value) buffered += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield JSON.parse(line);
    }
    if (done) break;
  }
  if (buffered.trim()) yield JSON.parse(buffered);
}
