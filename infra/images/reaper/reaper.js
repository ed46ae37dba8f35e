// @ts-check
// A reaper that speaks Testcontainers' Ryuk protocol, for the flowagg/reaper image: Testcontainers pulls
// testcontainers/ryuk from Docker Hub, which is not reachable here, and runs this instead when
// RYUK_CONTAINER_IMAGE names it (integration-tests/harness/containers.ts). What a crashed test run
// started is removed all the same.
//
// Protocol: clients connect over TCP (port 8080) and send filter lines, each a query string such as
// `label=org.testcontainers.session-id=<uuid>`, answered with `ACK`. Once every client has disconnected
// and none came back within RYUK_RECONNECTION_TIMEOUT (10 s), or none connected within
// RYUK_CONNECTION_TIMEOUT (60 s), or on SIGTERM, the containers, networks and volumes matching any filter
// are removed (never a reaper's own container), and the reaper exits and removes its own container.
import { request } from 'node:http';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { URLSearchParams } from 'node:url';

const SOCKET = (process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '');
const REAPER_LABEL = 'org.testcontainers.ryuk';

/**
 * A filter line as Docker's filters argument: `label=a=b&label=c` → { label: ['a=b', 'c'] }.
 * @param {string} line
 * @returns {Record<string, string[]> | undefined} undefined for a line that names nothing
 */
export function parseFilter(line) {
  /** @type {Record<string, string[]>} */
  const filters = {};
  for (const [key, value] of new URLSearchParams(line.trim())) {
    if (key === '') continue;
    (filters[key] ??= []).push(value);
  }
  return Object.keys(filters).length > 0 ? filters : undefined;
}

/**
 * Ryuk's duration settings: "10s", "500ms", "1m", or plain seconds.
 * @param {string | undefined} text
 * @param {number} fallbackMs
 */
export function parseDuration(text, fallbackMs) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text ?? '');
  if (m === null) return fallbackMs;
  const unit = m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000;
  return Number(m[1]) * unit;
}

/**
 * One Docker Engine API call over the socket.
 * @param {string} method
 * @param {string} path
 * @returns {Promise<{ status: number, body: any }>}
 */
function docker(method, path) {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: SOCKET, method, path }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : safeJson(text) }));
    });
    req.on('error', reject).end();
  });
}

/** @param {string} text */
function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** @param {Record<string, string[]>} filters */
const query = (filters) => encodeURIComponent(JSON.stringify(filters));

/** @param {Record<string, string[]>[]} filterSets */
async function prune(filterSets) {
  let removed = 0;
  for (const filters of filterSets) {
    const containers = (await docker('GET', `/containers/json?all=1&filters=${query(filters)}`)).body ?? [];
    for (const c of containers) {
      if (c.Labels?.[REAPER_LABEL] === 'true') continue;
      const r = await docker('DELETE', `/containers/${c.Id}?force=1&v=1`);
      if (r.status < 300) removed++;
      else console.log(`could not remove container ${c.Id}: ${JSON.stringify(r.body)}`);
    }
    for (const n of (await docker('GET', `/networks?filters=${query(filters)}`)).body ?? []) {
      if ((await docker('DELETE', `/networks/${n.Id}`)).status < 300) removed++;
    }
    for (const v of (await docker('GET', `/volumes?filters=${query(filters)}`)).body?.Volumes ?? []) {
      if ((await docker('DELETE', `/volumes/${encodeURIComponent(v.Name)}?force=1`)).status < 300) removed++;
    }
  }
  return removed;
}

function main() {
  const reconnectionMs = parseDuration(process.env.RYUK_RECONNECTION_TIMEOUT, 10_000);
  const connectionMs = parseDuration(process.env.RYUK_CONNECTION_TIMEOUT, 60_000);
  /** @type {Map<string, Record<string, string[]>>} */
  const filterSets = new Map();
  let clients = 0;
  let finishing = false;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const arm = (/** @type {number} */ ms, /** @type {string} */ why) => {
    clearTimeout(timer);
    timer = setTimeout(() => void finish(why), ms);
  };

  const server = createServer((socket) => {
    clients++;
    clearTimeout(timer);
    let pending = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const filters = parseFilter(line);
        if (filters !== undefined) {
          filterSets.set(JSON.stringify(filters), filters);
          console.log(`filter ${line.trim()}`);
        }
        socket.write('ACK\n');
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clients--;
      if (clients === 0 && !finishing) arm(reconnectionMs, `no client for ${reconnectionMs} ms`);
    });
  });

  /** @param {string} why */
  async function finish(why) {
    if (finishing || clients > 0) return;
    finishing = true;
    server.close();
    const removed = await prune([...filterSets.values()]).catch((err) => {
      console.log(`prune failed: ${err instanceof Error ? err.message : String(err)}`);
      return 0;
    });
    console.log(`${why}: removed ${removed} resources of ${filterSets.size} filters`);
    // Last: the reaper's own container (its hostname is the container's id), killed by this request.
    await docker('DELETE', `/containers/${hostname()}?force=1`).catch(() => {});
    process.exit(0);
  }

  process.on('SIGTERM', () => {
    clients = 0;
    void finish('SIGTERM');
  });
  server.listen(Number(process.env.RYUK_PORT ?? 8080), () => {
    console.log(`Started: flowagg reaper on port ${Number(process.env.RYUK_PORT ?? 8080)}, Docker at ${SOCKET}`);
    arm(connectionMs, `no client within ${connectionMs} ms`);
  });
}

if (process.argv[1]?.endsWith('reaper.js')) main();
