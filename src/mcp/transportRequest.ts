/** Read-only view of a request's headers (names already lower-case, as uWebSockets.js gives them). */
class HeaderView {
  constructor(private readonly record: Record<string, string>) {}

  get(name: string): string | null {
    return this.record[name.toLowerCase()] ?? null;
  }

  has(name: string): boolean {
    return name.toLowerCase() in this.record;
  }

  entries(): IterableIterator<[string, string]> {
    return Object.entries(this.record)[Symbol.iterator]();
  }

  forEach(fn: (value: string, name: string) => void): void {
    for (const [k, v] of Object.entries(this.record)) fn(v, k);
  }
}

/**
 * The request handed to the SDK's web-standard transport. With the body already parsed (passed as
 * parsedBody) the transport reads only the method, URL and headers, so those are all it gets: a fetch
 * Request costs more to build than the rest of the bridge (header validation and copying). A body that
 * did not parse as JSON goes in a real Request, whose body the transport reads and answers -32700.
 */
export function transportRequest(method: string, url: string, headers: Record<string, string>, unparsedBody: Uint8Array<ArrayBuffer> | null): Request {
  if (unparsedBody) return new Request(url, { method, headers, body: unparsedBody });
  return { method, url, headers: new HeaderView(headers) } as unknown as Request;
}
