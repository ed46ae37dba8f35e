// The ingest transcoders as a fuzz target (lib/ipfix/testing/fuzz.ts mutates real messages): every mutated
// message goes through transcodeMessage in a session of its own, with shared transcoders compiled after a few
// records, and every FlowRecord it yields is Avro-decoded and its flow key parsed. A record that does not
// decode, or a key that does not parse, is thrown as a plain Error: a crash, as much a bug as an exception.
import type { FuzzTarget } from '../../../lib/ipfix/testing/fuzz.js';
import { IPFIX_ERR, IpfixError } from '../../../lib/ipfix/errors.js';
import { packetVersion } from '../../../lib/ipfix/netflow-message.js';
import { NETFLOW_SHAPE, netflowCorpus } from '../../../lib/ipfix/testing/netflow-fuzz.js';
import { flowRecordReader } from '../../../schemas/flow-record.js';
import { ExporterSession, type SessionProtocol } from '../../session.js';
import { transcodeMessage } from '../../transcode-message.js';
import { parseFlowKey } from '../../../schemas/flow-key.js';
import { RunWriter } from '../run-writer.js';
import { recordsOfRuns } from '../../../lib/log/record-runs.js';
import { TranscoderCache } from '../transcoder-cache.js';

function newSession(transport: 'udp' | 'tcp', protocol: SessionProtocol = 'ipfix'): ExporterSession {
  return new ExporterSession(transport, { address: '192.0.2.1', port: 4739 }, { templateTtlMs: 1_800_000, now: () => 1_700_000_000_000, maxTemplates: 4096 }, protocol);
}

export function transcoderTarget(): FuzzTarget<ExporterSession> {
  return { session: (transport) => newSession(transport), decode: checkedTranscode() };
}

/**
 * NetFlow packets through transcodeMessage, as on the NetFlow port: a v9 or a v5 session of the exporter by the
 * packet's version (a mutated version is refused as the pipeline refuses it).
 */
export function netflowTranscoderTarget(): FuzzTarget<Record<'v9' | 'v5', ExporterSession>> {
  const decode = checkedTranscode();
  return {
    session: () => ({ v9: newSession('udp', 'netflow_v9'), v5: newSession('udp', 'netflow_v5') }),
    decode: (sessions, bytes) => {
      const version = packetVersion(bytes);
      if (version !== 9 && version !== 5) throw new IpfixError(IPFIX_ERR.BAD_VERSION, `version ${version} is neither NetFlow v5 nor v9`);
      return decode(version === 9 ? sessions.v9 : sessions.v5, bytes);
    },
    corpus: netflowCorpus,
    shape: NETFLOW_SHAPE,
  };
}

function checkedTranscode(): FuzzTarget<ExporterSession>['decode'] {
  const reader = flowRecordReader();
  // Shared across sessions, as in the service; small, so that eviction and recompiling are fuzzed too.
  const transcoders = new TranscoderCache({ maxLayouts: 64, compileAfterRecords: 4 });
  const writer = new RunWriter();
  return (session, bytes) => {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    writer.out.reset();
    const t = transcodeMessage(session, buf, writer, 1_700_000_000_000, transcoders);
    for (const r of recordsOfRuns(t.runs)) {
      try {
        reader.decode(r.value!);
      } catch (err) {
        throw new Error(`a transcoded record does not decode: ${(err as Error).message}; value ${r.value!.toString('hex')}`);
      }
      if (parseFlowKey(r.key!) === undefined) throw new Error(`a transcoded record's flow key does not parse: ${r.key!.toString('hex')}`);
    }
    return { records: t.records, errors: t.errors };
  };
}
