// `npm run fuzz [iterations] [seed]`: mutation-fuzzes the IPFIX decoder (default 100,000 mutations)
// and the decode command's JSON and text formatting of whatever decodes, then the ingest transcoders
// (transcodeMessage, every FlowRecord Avro-decoded) on as many mutations, then the same two for NetFlow v9
// and v5 packets, and reports the counts.
// Exits 1 if anything other than an IpfixError was thrown.
import { netflowTranscoderTarget, transcoderTarget } from '../ingest/records/testing/fuzz-target.js';
import { netflowDecoderTarget } from '../lib/ipfix/testing/netflow-fuzz.js';
import { jsonLine, jsonLinePrefix, recordToText } from '../app/cli/commands/decode-format.js';
import { decoderTarget, type FuzzReport, fuzzTarget } from '../lib/ipfix/testing/fuzz.js';

const iterations = Number(process.argv[2] ?? 100_000);
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);

function run(name: string, fuzzed: () => FuzzReport): number {
  const start = performance.now();
  const report = fuzzed();
  const seconds = (performance.now() - start) / 1000;
  console.log(`fuzz ${name}: ${report.iterations.toLocaleString('en-US')} mutations (seed ${seed}) in ${seconds.toFixed(1)} s`);
  console.log(`  decoded without a message-level error: ${report.decoded.toLocaleString('en-US')}, data records: ${report.records.toLocaleString('en-US')}`);
  console.log(`  slowest single message: ${report.slowestMs.toFixed(2)} ms`);
  console.log('  typed errors:');
  for (const [code, n] of Object.entries(report.ipfixErrors).sort((a, b) => b[1] - a[1])) console.log(`    ${code}: ${n.toLocaleString('en-US')}`);
  console.log(`  crashes (anything but IpfixError): ${report.crashes.length}`);
  for (const c of report.crashes.slice(0, 5)) console.log(`    #${c.iteration} ${c.mutation}: ${c.error}\n    ${c.hex}`);
  return report.crashes.length;
}

const decoder = decoderTarget((d) => {
  for (const r of d.records) {
    JSON.parse(jsonLine(r, jsonLinePrefix(r.template.id, { exporter: 'fuzz', header: d.header })));
    recordToText(r);
  }
});
const crashes = run('decoder', () => fuzzTarget(decoder, iterations, seed)) + run('ingest transcoders', () => fuzzTarget(transcoderTarget(), iterations, seed))
  + run('NetFlow decoder', () => fuzzTarget(netflowDecoderTarget(), iterations, seed)) + run('NetFlow ingest transcoders', () => fuzzTarget(netflowTranscoderTarget(), iterations, seed));
process.exitCode = crashes > 0 ? 1 : 0;
