// Baseline for bench/http: a bare uWebSockets.js server answering a fixed JSON body.
import uWS from 'uWebSockets.js';

const port = Number(process.env.PORT ?? 0);
uWS
  .App()
  .any('/*', (res) => {
    res.cork(() => res.writeHeader('content-type', 'application/json').end('{"status":"ok"}'));
  })
  .listen('127.0.0.1', port, (token) => {
    if (!token) process.exit(1);
    process.stdout.write(`listening ${uWS.us_socket_local_port(token)}\n`);
  });
