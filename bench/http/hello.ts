// Baseline for bench/http: a bare server answering a fixed JSON body on one HTTP engine (HTTP_ENGINE):
// node:http as it comes, or the uWebSockets.js binary the service would load.
import { createServer } from 'node:http';
import { httpEngine } from '../../src/http/engine/select.js';

const port = Number(process.env.PORT ?? 0);
const body = '{"status":"ok"}';
const ready = (p: number) => process.stdout.write(`listening ${p}\n`);

if (process.env.HTTP_ENGINE === 'uws') {
  const listener = await httpEngine('uws').listen('127.0.0.1', port, (res) => {
    res.cork(() => {
      res.writeHeader('content-type', 'application/json');
      res.end(body);
    });
  });
  ready(listener.port);
} else {
  const server = createServer({ keepAliveTimeout: 10_000 }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
  server.listen(port, '127.0.0.1', () => ready((server.address() as { port: number }).port));
}
