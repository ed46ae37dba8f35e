// `flowagg pipeline --mode aggregate|proxy FILE [--inventory FILE]`: a capture through the processor,
// printed as JSON lines (app/pipeline.ts).
import { errorMessage } from '../../../lib/errors.js';
import { openMetadataSource } from '../../../lib/k8s/index.js';
import { componentLogger } from '../../../lib/telemetry/logger.js';
import { runPipeline } from '../../pipeline.js';
import { type Command, type ParsedArgs, stringOption, UsageError } from '../command.js';
import { writeStdout } from './decode.js';
import { loadServiceConfig } from '../../serve.js';

const usage = `Usage: flowagg pipeline --mode aggregate|proxy FILE [--inventory FILE] [--config FILE]

Runs an IPFIX file (RFC 5655) or a pcap/pcapng capture of IPFIX over UDP through ingest's decoding and the
processor, on a temporary embedded log, and prints one JSON object per output record on stdout, keyed by
element names as flowagg decode prints them: aggregated records with Antrea's aggregation elements
(packetTotalCountFromSourceNode, flowEndSecondsFromDestinationNode, throughput, ...), proxied ones with
the original-exporter elements and flowDirection. Exporters are told apart by the capture's IP headers;
time is the messages' export times; at the end of the input every flow still held is exported. The
same file always gives the same output.

  --mode MODE        aggregate or proxy (required)
  --inventory FILE   Kubernetes inventory (Pods, Nodes, Services; docs/kubernetes.md) for the missing side
                     of inter-Node and deny flows and for Pod labels (recordContents.podLabels)
  --config FILE      the service configuration, for the processor's keys (timeouts, recordContents,
                     processor.*); log and topic settings do not apply

Problems in the input go to stderr with their byte offset; the exit status is then 1.
`;

/** Lines batched into one stdout write per ~64 KiB instead of one per record. */
function bufferedLines(sink: (bytes: Uint8Array) => void): { write(s: string): void; flush(): void } {
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    if (parts.length === 0) return;
    sink(Buffer.from(parts.join(''), 'utf8'));
    parts = [];
    size = 0;
  };
  return {
    write(s) {
      parts.push(s);
      size += s.length;
      if (size > 65536) flush();
    },
    flush,
  };
}

export const pipelineCommand: Command = {
  name: 'pipeline',
  usage,
  options: { mode: { type: 'string' }, inventory: { type: 'string' }, config: { type: 'string' } },
  positionals: true,
  async run(args: ParsedArgs): Promise<number> {
    const [file, ...extra] = args.positionals;
    if (file === undefined || extra.length > 0) throw new UsageError('expects exactly one FILE');
    const mode = stringOption(args, 'mode');
    if (mode === undefined || !['aggregate', 'proxy'].includes(mode.toLowerCase())) throw new UsageError('--mode must be aggregate or proxy');
    const inventory = stringOption(args, 'inventory');
    const config = loadServiceConfig(args, {
      mode,
      'log.topics.flowsRawPartitions': 1,
      'log.topics.flowsProcessedPartitions': 1,
      ...(inventory !== undefined && { 'kubernetes.inventory': inventory }),
    });
    const metadata = await openMetadataSource(config.kubernetes);
    await metadata?.ready();
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
    const out = bufferedLines(writeStdout);
    try {
      const result = await runPipeline(file, config, { ...(metadata && { metadata }), logger: componentLogger('pipeline').child({}, { level: 'warn' }) }, {
        write: (line) => out.write(`${line}\n`),
        report: (line) => process.stderr.write(`${line}\n`),
      });
      return result.problems === 0 ? 0 : 1;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EACCES') {
        process.stderr.write(`flowagg pipeline: cannot read ${file}: ${errorMessage(e)}\n`);
        return 1;
      }
      throw e;
    } finally {
      out.flush();
      await metadata?.close();
    }
  },
};
