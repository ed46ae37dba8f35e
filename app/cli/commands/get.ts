// `flowagg get flowrecords|recordmetrics`: what a running instance's API (Antrea's apiServer, port
// 10348) says, as `antctl get flowrecords` and `antctl get recordmetrics` show it from a
// FlowAggregator: JSON, or a table. It reaches the API as antctl does in the FlowAggregator Pod (HTTPS
// to 127.0.0.1, the bearer token from the loopback token file, the certificate not verified), or
// through the address a process holding the embedded log publishes (flowagg run), or at --server.
import { readFileSync } from 'node:fs';
import { type ApiTarget, answerError, apiRequest } from '../../../lib/apiserver/client.js';
import { isLoopbackHost, localUrl } from '../../../lib/apiserver/local-url.js';
import { readTokenFile } from '../../../lib/apiserver/loopback-token.js';
import { formatDiagnostic, loadConfig } from '../../../lib/config/load.js';
import { apiTargetOf, readLogApi } from '../../../lib/log/admin-api.js';
import { formatTable, type Cell } from '../../../lib/table.js';
import { loopbackTokenFile } from '../../../lib/telemetry/config.js';
import { type Command, type ParsedArgs, stringOption, UsageError } from '../command.js';
import { serviceConfigSchema } from '../../service-config.js';

const FILTERS = ['srcip', 'dstip', 'srcport', 'dstport', 'proto'] as const;

const usage = `Usage: flowagg get flowrecords [-o json|table] [--srcip IP] [--dstip IP] [--srcport N] [--dstport N] [--proto N] [--limit N] [connection options]
       flowagg get recordmetrics [-o json|table] [connection options]

flowrecords: the flows a running processor holds in its aggregation state (Aggregate mode), filtered by
source and destination address and port and protocol, as antctl get flowrecords shows them; at most
--limit (default 10,000). recordmetrics: the instance's record counters under Antrea's names
(numRecordsExported, numRecordsReceived, numFlows, numConnToCollector, ...).

  -o, --output json|table  table (default) or JSON as the API serves it

connection (default: the process holding the embedded log of --config, as it published itself in the
log directory; else https://127.0.0.1:apiServer.apiPort with the loopback token, as antctl in the Pod):
  --config FILE            flowagg's configuration: its log and apiServer sections
  --server URL             the API: https://HOST:PORT, http://HOST:PORT, or HOST:PORT (HTTPS)
  --token-file FILE        the bearer token (default: apiServer.loopbackTokenFile)
  --ca-cert FILE           verify the server's certificate with this CA. Without it the certificate
                           of a server on this machine (loopback) is not verified, as antctl does;
                           one elsewhere is verified with the system's CAs
`;

type Json = Record<string, unknown>;

/** Where the API is and how to authenticate to it, by the rules of the usage above. */
export function apiTarget(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): ApiTarget {
  const file = stringOption(args, 'config');
  const config = loadConfig(serviceConfigSchema, { ...(file !== undefined && { file }), env, report: (d) => void process.stderr.write(`${formatDiagnostic(d)}\n`) });
  const server = stringOption(args, 'server');
  const tokenFile = stringOption(args, 'token-file');
  const caFile = stringOption(args, 'ca-cert');
  const published = config.log.backend === 'embedded' ? readLogApi(config.log.embedded.dir) : undefined;
  if (server === undefined && tokenFile === undefined && caFile === undefined && published !== undefined && alive(published.pid)) return apiTargetOf(published);
  const url = server === undefined ? localUrl(config.apiServer.protocol, undefined, config.apiServer.apiPort) : /^[a-z]+:\/\//i.test(server) ? server : `https://${server}`;
  const token = readTokenFile(tokenFile ?? loopbackTokenFile(config.apiServer, env));
  if (tokenFile !== undefined && token === undefined) throw new UsageError(`--token-file ${tokenFile}: no token there`);
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token)) throw new UsageError(`the token file ${tokenFile ?? loopbackTokenFile(config.apiServer, env)} does not hold a bearer token (one word of printable characters)`);
  const ca = caFile === undefined ? undefined : readFileSync(caFile, 'utf8');
  return { url, ...(token !== undefined && { token }), ...(ca !== undefined ? { ca } : { insecure: isLoopbackHost(new URL(url).hostname) }) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function getJson(target: ApiTarget, path: string): Promise<unknown> {
  const res = await apiRequest(target, path).catch((err: unknown) => {
    throw new Error(`${(err as Error).message} (is flowagg running there? --server URL)`);
  });
  if (res.status !== 200) {
    const hint = res.status === 401 || res.status === 403 ? ' (--token-file names the token; antctl reads the loopback token file)' : '';
    throw new Error(`${new URL(path, target.url).href} answered ${answerError(res)}${hint}`);
  }
  return res.json;
}

const FLOW_COLUMNS: readonly [string, (r: Json) => Cell][] = [
  ['SRC_IP', (r) => (r.sourceIPv4Address ?? r.sourceIPv6Address ?? null) as Cell],
  ['DST_IP', (r) => (r.destinationIPv4Address ?? r.destinationIPv6Address ?? null) as Cell],
  ['SPORT', (r) => (r.sourceTransportPort ?? null) as Cell],
  ['DPORT', (r) => (r.destinationTransportPort ?? null) as Cell],
  ['PROTO', (r) => (r.protocolIdentifier ?? null) as Cell],
  ['SRC_POD', (r) => (r.sourcePodName || null) as Cell],
  ['DST_POD', (r) => (r.destinationPodName || null) as Cell],
  ['SRC_NS', (r) => (r.sourcePodNamespace || null) as Cell],
  ['DST_NS', (r) => (r.destinationPodNamespace || null) as Cell],
  ['FLOW_TYPE', (r) => (r.flowType ?? null) as Cell],
  ['PACKETS', (r) => (r.packetTotalCount ?? null) as Cell],
  ['BYTES', (r) => (r.octetTotalCount ?? null) as Cell],
  ['EXPORTS', (r) => (r['@sequenceNumber'] ?? null) as Cell],
];

export async function runGet(args: ParsedArgs, out: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [what, ...extra] = args.positionals;
  if (extra.length > 0 || (what !== 'flowrecords' && what !== 'recordmetrics')) throw new UsageError('expects flowrecords or recordmetrics');
  const format = stringOption(args, 'output') ?? 'table';
  if (format !== 'json' && format !== 'table') throw new UsageError(`-o must be json or table, not "${format}"`);
  if (what === 'recordmetrics' && FILTERS.some((f) => stringOption(args, f) !== undefined)) throw new UsageError('filters apply to flowrecords only');
  const target = apiTarget(args, env);
  if (what === 'recordmetrics') {
    const metrics = (await getJson(target, '/recordmetrics')) as Json;
    out(format === 'json' ? `${JSON.stringify(metrics, null, 2)}\n` : formatTable(Object.keys(metrics).map((k) => k.toUpperCase()), [Object.values(metrics) as Cell[]]));
    return 0;
  }
  const query = new URLSearchParams();
  for (const name of [...FILTERS, 'limit']) {
    const v = stringOption(args, name);
    if (v !== undefined) query.set(name, v);
  }
  const records = ((await getJson(target, `/flowrecords${query.size > 0 ? `?${query}` : ''}`)) ?? []) as Json[];
  out(format === 'json' ? `${JSON.stringify(records, null, 2)}\n` : formatTable(FLOW_COLUMNS.map(([h]) => h), records.map((r) => FLOW_COLUMNS.map(([, cell]) => cell(r)))));
  return 0;
}

export const getCommand: Command = {
  name: 'get',
  usage,
  options: {
    output: { type: 'string', short: 'o' }, server: { type: 'string' }, limit: { type: 'string' }, config: { type: 'string' },
    'token-file': { type: 'string' }, 'ca-cert': { type: 'string' },
    ...Object.fromEntries(FILTERS.map((f) => [f, { type: 'string' as const }])),
  },
  positionals: true,
  run: (args) => runGet(args, (text) => process.stdout.write(text)),
};
