// `flowagg simulate`: synthetic Antrea Agents exporting to a collector (simulate), with a progress
// line on stderr and, at the end, what was sent on stdout: the demo against `flowagg run`, the load
// generator of the benchmarks, the driver of the end-to-end tests.
import { parseDuration } from '../../../lib/config/types.js';
import { MAX_NODES } from '../../../simulate/antrea/workload.js';
import { shapeOf } from '../../../simulate/plan.js';
import { type Progress, progressLine, shortfalls, summaryText } from '../../../simulate/report.js';
import { SIMULATE_TRANSPORTS, type SimulateTransport, simulate, type SimulationOptions } from '../../../simulate/simulation.js';
import { DEFAULT_SERVER_NAME, directoryFiles, readTlsMaterial } from '../../../simulate/tls.js';
import { type Command, OUTPUT_OPTION, type ParsedArgs, UsageError, outputFormat, stringOption } from '../command.js';

const USAGE = `Usage: flowagg simulate [--transport udp|tcp|tls|grpc] [--target HOST:PORT] [options]

Synthetic Antrea Agents: N Nodes, each with its own connection (its own IPFIX session and observation
domain, the FNV-1 of its name, as Antrea's Agent), exporting M concurrent flows of every kind (intra-Node,
inter-Node with both halves from the two Nodes, to and from external with SNAT, denied at egress and at
ingress; IPv4 and IPv6) with Antrea's 43 elements, each flow once per export interval with growing
counters, until the flow ends and another takes its place. A progress line goes to stderr every second;
at the end, what was sent goes to stdout: records and the sums of the delta counters, per Node and in
total (and per flow with --per-flow), for comparison with what the collector made of them.

  flowagg run &                 # the collector, the processor and the flow log
  flowagg simulate --duration 30s

Where to:
  --transport T          udp, tcp (default), tls (IPFIX over TLS with the client certificate) or grpc
                         (FlowExportService.Export, one Flow per message, mutual TLS)
  --target HOST:PORT     the collector (default 127.0.0.1:4739; grpc: 127.0.0.1:14739). Against a
                         loopback collector each Node connects from an address of its own (127.1.0.1,
                         127.1.0.2, ...; Linux, IPFIX transports) so that the collector sees one exporter
                         per Node
  --shared-source        every Node connects from the host's address instead
  --tls-dir DIR          ca.crt, client.crt and client.key, as the collector issues them (default
                         data/tls, flowagg run's; flowagg certs issue writes them too)
  --ca FILE, --cert FILE, --key FILE
                         the CA and client certificate and key, one by one (override --tls-dir)
  --server-name NAME     the name the collector's certificate must carry (default
                         ${DEFAULT_SERVER_NAME}, the name Agents use)

What:
  --nodes N              Nodes, 1 to 65,536 (default 6)
  --first-node K         the first Node is node-K (default 0): several simulators against one collector,
                         each with Nodes, addresses and flows of its own (K + N at most 65,536)
  --flows M              concurrent flows (default: what --rate needs, else 1000)
  --rate R               records a second, at most (default: what the flows give, M × reporting Nodes
                         per flow / export interval). Records more than an interval behind are skipped,
                         and the Node's next record of the flow carries their counts, as an Agent's would
  --export-interval D    how often an Agent exports each flow (default 5s, Antrea's
                         activeFlowExportTimeout; whole seconds)
  --records-per-flow N   records each Node sends of a flow before it ends (default 5)
  --ipv6-share F         share of IPv6 flows, 0 to 1 (default 0.1)
  --seed N               the cluster and its flows are the same for the same seed (default 1)
  --template-refresh D   udp: templates sent again this often (default 600s)
  --connect-timeout D    every Node must connect within this at start (default 10s)

How long:
  --duration D           e.g. 10s, 5m (default: until SIGINT or SIGTERM)
  --records N            stop after N records

Output:
  -o, --output F         text (default) or json
  --per-flow             the sums of every flow and Node in the output (memory grows with the flows sent)
  -q, --quiet            no progress line

Exit status: 0 when every record handed to a connection was written and every Node is connected at the
end; 1 when records were lost, a Node was not connected at the end, or the Nodes could not connect at
start (the summary is printed all the same); 2 for a usage error.
`;

const OPTIONS = {
  transport: { type: 'string' }, target: { type: 'string' }, 'shared-source': { type: 'boolean' },
  'tls-dir': { type: 'string' }, ca: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' }, 'server-name': { type: 'string' },
  nodes: { type: 'string' }, 'first-node': { type: 'string' }, flows: { type: 'string' }, rate: { type: 'string' }, 'export-interval': { type: 'string' },
  'records-per-flow': { type: 'string' }, 'ipv6-share': { type: 'string' }, seed: { type: 'string' },
  'template-refresh': { type: 'string' }, 'connect-timeout': { type: 'string' },
  duration: { type: 'string' }, records: { type: 'string' },
  ...OUTPUT_OPTION, 'per-flow': { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' },
} as const;

function number(args: ParsedArgs, name: string, min: number, max: number, integer: boolean): number | undefined {
  const text = stringOption(args, name);
  if (text === undefined) return undefined;
  const v = Number(text.replaceAll('_', ''));
  if (text.trim() === '' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    throw new UsageError(`--${name} ${text}: ${integer ? 'an integer' : 'a number'} from ${min} to ${max.toLocaleString('en-US')} is needed`);
  }
  return v;
}

function duration(args: ParsedArgs, name: string, minMs: number): number | undefined {
  const text = stringOption(args, name);
  if (text === undefined) return undefined;
  const ms = parseDuration(text.trim());
  if (ms === undefined || ms < minMs) throw new UsageError(`--${name} ${text}: a duration of at least ${minMs / 1000}s is needed (examples: 10s, 5m, 1h30m)`);
  return ms;
}

/** HOST:PORT, [IPV6]:PORT, or HOST alone (the transport's default port). */
export function parseTarget(text: string, defaultPort: number): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text);
  const port = m?.[2] === undefined ? defaultPort : Number(m[2]);
  if (m === null || m[1] === '' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`--target ${text}: HOST:PORT is needed, e.g. 127.0.0.1:4739 or [::1]:4739 (port 1 to 65535)`);
  }
  return { host: m[1]!, port };
}

/** The simulation a command line asks for; TLS material is read from disk for tls and grpc. */
export function simulationOptions(args: ParsedArgs): SimulationOptions {
  const transport = (stringOption(args, 'transport') ?? 'tcp') as SimulateTransport;
  if (!SIMULATE_TRANSPORTS.includes(transport)) throw new UsageError(`--transport ${transport}: one of ${SIMULATE_TRANSPORTS.join(', ')}`);
  const secure = transport === 'tls' || transport === 'grpc';
  for (const name of ['tls-dir', 'ca', 'cert', 'key', 'server-name']) {
    if (!secure && stringOption(args, name) !== undefined) throw new UsageError(`--${name} is for --transport tls or grpc`);
  }
  if (transport !== 'udp' && stringOption(args, 'template-refresh') !== undefined) throw new UsageError('--template-refresh is for --transport udp (TCP and TLS send the templates once per connection)');
  const intervalMs = duration(args, 'export-interval', 1000) ?? 5000;
  if (intervalMs % 1000 !== 0) throw new UsageError(`--export-interval ${stringOption(args, 'export-interval')}: whole seconds are needed (flow records carry seconds)`);
  const nodes = number(args, 'nodes', 1, MAX_NODES, true) ?? 6;
  const firstNode = number(args, 'first-node', 0, MAX_NODES - 1, true) ?? 0;
  if (firstNode + nodes > MAX_NODES) throw new UsageError(`--first-node ${firstNode} with ${nodes} Nodes: Nodes are numbered below ${MAX_NODES}`);
  const shaped = shapeOf({
    nodes, firstNode, flows: number(args, 'flows', 1, 10_000_000, true), rate: number(args, 'rate', 0.001, 10_000_000, false),
    recordsPerFlow: number(args, 'records-per-flow', 1, 1000, true) ?? 5, exportIntervalS: intervalMs / 1000,
    ipv6Share: number(args, 'ipv6-share', 0, 1, false) ?? 0.1, seed: number(args, 'seed', 0, 2 ** 31 - 1, true) ?? 1,
  });
  if (!shaped.ok) throw new UsageError(shaped.error);
  const dir = stringOption(args, 'tls-dir') ?? 'data/tls';
  const files = { ...directoryFiles(dir), ...['ca', 'cert', 'key'].reduce((o, k) => (stringOption(args, k) === undefined ? o : { ...o, [k]: stringOption(args, k) }), {}) };
  return {
    shape: shaped.shape, transport, ...parseTarget(stringOption(args, 'target') ?? '127.0.0.1', transport === 'grpc' ? 14739 : 4739),
    durationMs: duration(args, 'duration', 1), maxRecords: number(args, 'records', 1, Number.MAX_SAFE_INTEGER, true),
    tls: secure ? readTlsMaterial(files, stringOption(args, 'server-name') ?? DEFAULT_SERVER_NAME) : undefined,
    bindLoopback: args.values['shared-source'] !== true, templateRefreshMs: duration(args, 'template-refresh', 1000) ?? 600_000,
    connectTimeoutMs: duration(args, 'connect-timeout', 1) ?? 10_000, perFlow: args.values['per-flow'] === true,
  };
}

function progressWriter(): (p: Progress) => void {
  const tty = process.stderr.isTTY === true;
  return (p) => process.stderr.write(tty ? `\r${progressLine(p)}\x1b[K` : `${progressLine(p)}\n`);
}

async function run(args: ParsedArgs): Promise<number> {
  const format = outputFormat(args, ['text', 'json']);
  const options = simulationOptions(args);
  const quiet = args.values.quiet === true;
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { shape } = options;
    const report = await simulate(options, {
      signal: abort.signal,
      ...(!quiet && { progress: progressWriter() }),
      started: (nodes, own) => {
        if (quiet) return;
        const until = options.durationMs !== undefined ? `for ${options.durationMs / 1000}s` : options.maxRecords !== undefined ? `until ${options.maxRecords} records` : 'until SIGINT or SIGTERM';
        process.stderr.write(
          `simulate: ${nodes.length} Nodes connected over ${options.transport} to ${options.host}:${options.port}${own ? ' (each from its own 127.1.x.y)' : ''}; ` +
            `${shape.flows.toLocaleString('en-US')} concurrent flows, ${Math.round(shape.rate).toLocaleString('en-US')} records/s, ${until}\n`,
        );
      },
    });
    if (!quiet && process.stderr.isTTY === true) process.stderr.write('\n');
    process.stdout.write(format === 'json' ? `${JSON.stringify(report)}\n` : summaryText(report));
    const missing = shortfalls(report);
    for (const m of missing) process.stderr.write(`flowagg simulate: ${m}\n`);
    return missing.length === 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export const simulateCommand: Command = {
  name: 'simulate',
  usage: USAGE,
  options: OPTIONS,
  run,
};
