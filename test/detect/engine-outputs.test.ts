// Detection on the text engine's own outputs (kept apart: it needs workers/text/index.ts to build).
import { describe, expect, it } from 'vitest';
import { detectIssues } from '../../workers/detect/index.js';
import { compressText } from '../../workers/text/index.js';

const DOC = `# Acme Server

Acme Server is a small HTTP server for internal tools. It is written in TypeScript and runs on Node 20.

## Installation

Install the package with \`npm install acme-server\`. The server listens on port 8080 by default.
You must not run the server as root. Connections time out after 30 seconds.

- The \`maxConnections\` option limits concurrent clients to 100.
- Set \`ACME_LOG_LEVEL\` to \`debug\` for verbose logs.

## Limits

| name | default | max |
|------|---------|-----|
| maxConnections | 100 | 1000 |
| requestTimeout | 30 | 300 |

At most 100 connections are allowed per client. Requests larger than 10 MB are rejected with HTTP 413.
The \`maxConnections\` option is read once at startup.

> **Warning:** never expose the admin port 9090 to the public internet.

\`\`\`js
const server = createServer({ port: 8080, maxConnections: 100 });
server.on('error', (err) => console.error(err));
server.listen();
await server.ready();
\`\`\`

## Error codes

The server reports E1042 when the configuration file is missing. It reports ERR_ACME_BIND when the port is taken.
Retries happen before the request is logged.

## History

The project started in March 2019 at Acme. It was rewritten in 2021 and is maintained by the platform team.
`;

describe("the text engine's own outputs", () => {
  it('have no hallucinations at any fidelity', async () => {
    for (const fidelity of ['detailed', 'balanced', 'outline', 'abstract'] as const) {
      const { compressed_text } = await compressText({ text: DOC, fidelity });
      const r = await detectIssues({ original_text: DOC, compressed_text });
      expect(r.issues.filter((i) => i.type === 'hallucination'), fidelity).toEqual([]);
      expect(r.issues_found).toBe(r.issues.length);
    }
  });

  it('checks a ~10,000-token pair quickly', async () => {
    const big = Array.from({ length: 40 }, (_, k) => DOC.replaceAll('Acme', `Acme${k}`)).join('\n\n');
    const { compressed_text } = await compressText({ text: big, fidelity: 'balanced' });
    await detectIssues({ original_text: big, compressed_text });
    const cpu = process.cpuUsage();
    for (let i = 0; i < 5; i++) await detectIssues({ original_text: big, compressed_text });
    const u = process.cpuUsage(cpu);
    // The bar is 50 ms (bench/detect measures it); CPU time here, generous for loaded machines.
    expect((u.user + u.system) / 1000 / 5).toBeLessThan(150);
  });
});
