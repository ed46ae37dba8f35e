// A TCP port free on 127.0.0.1 now, for a service a test starts on a fixed port, one it must find again
// after a restart. Drawn below Linux's ephemeral range (32768-60999 by default), so that no outgoing
// connection takes it as its local port while the service is down; another test may still take it in
// between, which tests accept. A port is handed out once per process: a test picks its services' ports
// before any of them listens, so a port free for the first pick would still be free for the next.
import { createServer } from 'node:net';

const LOWEST = 20_000;
const BELOW_EPHEMERAL = 32_768;
const handedOut = new Set<number>();

function listens(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (BELOW_EPHEMERAL - LOWEST));
    if (handedOut.has(port) || !(await listens(port))) continue;
    handedOut.add(port);
    return port;
  }
}
