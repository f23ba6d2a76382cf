// The documents both batch benchmarks compress: distinct, about 2,000 characters each.
const SECTIONS = [
  ['Installation', 'Install the package with npm. The service requires Node.js 20 or newer. Native addons are compiled with node-gyp during installation, which needs python3, make and a C++ compiler.'],
  ['Configuration', 'Set PORT to change the listening port; the default is 8080. Set DATABASE_URL to use PostgreSQL instead of the embedded database. Never commit API keys to a repository.'],
  ['Authentication', 'Every request under /v1 needs a bearer token. A revoked key is rejected within five seconds on every instance. Keys are stored as SHA-256 hashes, never in plain text.'],
  ['Troubleshooting', 'If the server answers 503 with a Retry-After header, the compute pool is saturated and the client should retry later. A 413 status means the body exceeded the configured limit.'],
];

/** A distinct document per index. */
export const documentText = (i: number): string =>
  SECTIONS.map(([h, p], k) => `## ${h}\n\n${p} Section ${k} of document ${i} was reviewed in week ${(i * 7 + k) % 52}.`).join('\n\n').repeat(2);

export const benchDocuments = (n: number, from = 0): Array<{ id: string; text: string }> =>
  Array.from({ length: n }, (_, i) => ({ id: `d${from + i}`, text: documentText(from + i) }));
