// `flowagg get flowrecords|recordmetrics`: what a running instance's HTTP API (Antrea's apiServer,
// port 10348) says, as `antctl get flowrecords` and `antctl get recordmetrics` show it from a
// FlowAggregator: JSON, or a table.
import { errorMessage } from '../../../lib/errors.js';
import { formatTable, type Cell } from '../../../lib/table.js';
import { type Command, type ParsedArgs, stringOption, UsageError } from '../command.js';

const DEFAULT_SERVER = 'localhost:10348';
const FILTERS = ['srcip', 'dstip', 'srcport', 'dstport', 'proto'] as const;

const usage = `Usage: flowagg get flowrecords [-o json|table] [--srcip IP] [--dstip IP] [--srcport N] [--dstport N] [--proto N] [--limit N] [--server HOST:PORT]
       flowagg get recordmetrics [-o json|table] [--server HOST:PORT]

flowrecords: the flows a running processor holds in its aggregation state (Aggregate mode), filtered by
source and destination address and port and protocol, as antctl get flowrecords shows them; at most
--limit (default 10,000). recordmetrics: the instance's record counters under Antrea's names
(numRecordsExported, numRecordsReceived, numFlows, ...).

  -o, --output json|table  table (default) or JSON as the API serves it
  --server HOST:PORT       the instance's HTTP API (default ${DEFAULT_SERVER})
`;

type Json = Record<string, unknown>;

async function getJson(server: string, path: string): Promise<unknown> {
  const url = `http://${server}${path}`;
  let res: Response;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new Error(`cannot reach ${url}: ${errorMessage((err as { cause?: unknown }).cause ?? err)} (is flowagg running there? --server HOST:PORT)`);
  }
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new Error(`${url} answered ${res.status}${body.error ? `: ${body.error}` : ''}`);
  return body;
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

export async function runGet(args: ParsedArgs, out: (text: string) => void): Promise<number> {
  const [what, ...extra] = args.positionals;
  if (extra.length > 0 || (what !== 'flowrecords' && what !== 'recordmetrics')) throw new UsageError('expects flowrecords or recordmetrics');
  const format = stringOption(args, 'output') ?? 'table';
  if (format !== 'json' && format !== 'table') throw new UsageError(`-o must be json or table, not "${format}"`);
  const server = stringOption(args, 'server') ?? DEFAULT_SERVER;
  if (what === 'recordmetrics') {
    if (FILTERS.some((f) => stringOption(args, f) !== undefined)) throw new UsageError('filters apply to flowrecords only');
    const metrics = (await getJson(server, '/recordmetrics')) as Json;
    out(format === 'json' ? `${JSON.stringify(metrics, null, 2)}\n` : formatTable(Object.keys(metrics).map((k) => k.toUpperCase()), [Object.values(metrics) as Cell[]]));
    return 0;
  }
  const query = new URLSearchParams();
  for (const name of [...FILTERS, 'limit']) {
    const v = stringOption(args, name);
    if (v !== undefined) query.set(name, v);
  }
  const records = (await getJson(server, `/flowrecords${query.size > 0 ? `?${query}` : ''}`)) as Json[];
  out(format === 'json' ? `${JSON.stringify(records, null, 2)}\n` : formatTable(FLOW_COLUMNS.map(([h]) => h), records.map((r) => FLOW_COLUMNS.map(([, cell]) => cell(r)))));
  return 0;
}

export const getCommand: Command = {
  name: 'get',
  usage,
  options: {
    output: { type: 'string', short: 'o' }, server: { type: 'string' }, limit: { type: 'string' },
    ...Object.fromEntries(FILTERS.map((f) => [f, { type: 'string' as const }])),
  },
  positionals: true,
  run: (args) => runGet(args, (text) => process.stdout.write(text)),
};
