// `flowagg decode FILE [--format json|text]`: prints the data records of an IPFIX file or of a
// pcap/pcapng capture of IPFIX, NetFlow v9 or NetFlow v5 over UDP (told apart by each datagram's version).
// Each exporter (address and port) in a capture is its own UDP session with its own templates, which expire
// on capture time; an IPFIX file is one session.
// Problems go to stderr with the byte offset they concern, and decoding goes on with the next message.
import { writeSync } from 'node:fs';
import { CaptureError } from '../../../lib/capture/errors.js';
import { capturedMessages } from '../../../lib/capture/messages.js';
import { errorMessage } from '../../../lib/errors.js';
import { type DecodedMessage, decodeMessage } from '../../../lib/ipfix/decode-message.js';
import { IPFIX_VERSION } from '../../../lib/ipfix/message-header.js';
import { NETFLOW_V5_VERSION, NETFLOW_V9_VERSION } from '../../../lib/ipfix/netflow-header.js';
import { decodeNetflow, packetVersion } from '../../../lib/ipfix/netflow-message.js';
import { IpfixError } from '../../../lib/ipfix/errors.js';
import { TemplateStore } from '../../../lib/ipfix/template-store.js';
import type { DataRecord } from '../../../lib/ipfix/types.js';
import { type Command, OUTPUT_OPTION, type ParsedArgs, UsageError, outputFormat } from '../command.js';
import { type RecordMeta, headerToText, recordToText, templateToText } from './decode-format.js';
import { JsonLinesWriter } from './json-lines.js';

const usage = `Usage: flowagg decode FILE [-o json|text]

Decode an IPFIX file (RFC 5655: messages back to back, e.g. what ipfixDump reads) or a pcap/pcapng
capture whose UDP payloads are IPFIX messages or NetFlow v9 or v5 packets, on any port (Ethernet incl.
802.1Q, Linux cooked SLL/SLL2 and raw IP link types; IPv4 and IPv6). The kind of file is recognised by its
first bytes, the kind of each datagram by its version field. NetFlow fields print under the IPFIX names
they map to (docs/netflow.md).

Options:
  -o, --output json|text  json (default): one JSON object per data record on stdout, keys are element
                          names (sourceIPv4Address, reverseOctetDeltaCount, sourcePodName, unknown
                          elements e<pen>.<id>) plus metadata keys starting with "@" (@exporter,
                          @observationDomainId, @templateId, @exportTime, @sequenceNumber, @offset;
                          NetFlow: @version and @sysUpTime too).
                          text: a readable dump of messages, templates and records.
                          (-f, --format is the same option.)
  -h, --help              show this help

Errors go to stderr with the byte offset in the file; decoding continues with the next message.
Exit status: 0 when everything decoded, 1 when any error was reported, 2 for a usage error.
`;

export interface Output {
  write(s: string): void;
  record(r: DataRecord, meta: RecordMeta): void;
  flush(): void;
}

/** Writes all of `bytes` to stdout with blocking writes, waiting out a non-blocking pipe that is full. */
export function writeStdout(bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) {
    try {
      off += writeSync(1, bytes, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/** stdout as decodeFile writes it: records as JSON lines through one buffer, text as it comes. */
function stdoutOutput(): Output {
  const lines = new JsonLinesWriter(writeStdout);
  return {
    write: (s) => {
      lines.flush();
      writeStdout(Buffer.from(s, 'utf8'));
    },
    record: (r, meta) => lines.record(r, meta),
    flush: () => lines.flush(),
  };
}

export async function decodeFile(path: string, format: 'json' | 'text', out: Output, err: (line: string) => void): Promise<number> {
  const sessions = new Map<string, { store: TemplateStore; clock: { now: number } }>();
  let problems = 0;
  const report = (offset: number, message: string, code?: string) => {
    problems++;
    err(`flowagg decode: ${path}: byte ${offset}: ${message}${code ? ` [${code}]` : ''}`);
  };
  try {
    for (const m of capturedMessages(path)) {
      if (m.kind === 'skipped') {
        if (format === 'text') out.write(`# packet at byte ${m.offset} skipped: ${m.reason}\n`);
        continue;
      }
      const version = packetVersion(m.bytes);
      const key = `${version === IPFIX_VERSION ? '' : version}|${m.exporter ?? ''}`;
      let session = sessions.get(key);
      if (session === undefined) {
        const clock = { now: 0 };
        // UDP sessions expire templates on capture time, so a capture decodes the same on any day.
        const store = m.exporter === undefined ? new TemplateStore({ transport: 'file' }) : new TemplateStore({ transport: 'udp', now: () => clock.now });
        session = { store, clock };
        sessions.set(key, session);
      }
      session.clock.now = m.timestampMs ?? 0;
      let decoded: DecodedMessage;
      try {
        // A capture's datagrams may be NetFlow; an IPFIX file holds only IPFIX (messages.ts stops at anything else).
        decoded = m.exporter !== undefined && (version === NETFLOW_V9_VERSION || version === NETFLOW_V5_VERSION) ? decodeNetflow(m.bytes, session.store) : decodeMessage(m.bytes, session.store);
      } catch (e) {
        if (!(e instanceof IpfixError)) throw e;
        report(m.offset + (m.exporter === undefined ? (e.context.offset ?? 0) : 0), `${m.exporter ? `message from ${m.exporter}: ` : ''}${e.message}`, e.code);
        continue;
      }
      // In a capture the message sits inside a packet; its own offsets are relative to the message.
      const at = (o: number | undefined) => (m.exporter === undefined ? m.offset + (o ?? 0) : m.offset);
      for (const e of decoded.errors) report(at(e.context.offset), `${m.exporter ? `message from ${m.exporter}, byte ${e.context.offset ?? 0} in the message: ` : ''}${e.message}`, e.code);
      const meta = { exporter: m.exporter, header: decoded.header, offset: m.offset };
      if (format === 'json') {
        for (const r of decoded.records) out.record(r, meta);
      } else {
        out.write(`${headerToText(decoded.header, { exporter: m.exporter, offset: m.offset })}\n`);
        for (const t of decoded.templates) out.write(`${templateToText(t)}\n`);
        for (const w of decoded.withdrawals) out.write(`--- template ${w.templateId} withdrawn ---\n`);
        for (const r of decoded.records) out.write(`${recordToText(r)}\n`);
      }
    }
  } catch (e) {
    if (!(e instanceof CaptureError)) throw e;
    report(Number(e.context.offset ?? 0), e.message, e.code);
  } finally {
    out.flush();
  }
  return problems === 0 ? 0 : 1;
}

export const decodeCommand: Command = {
  name: 'decode',
  usage,
  options: { ...OUTPUT_OPTION, format: { type: 'string', short: 'f' } },
  positionals: true,
  async run(args: ParsedArgs): Promise<number> {
    const [file, ...extra] = args.positionals;
    if (file === undefined || extra.length > 0) throw new UsageError('expects exactly one FILE');
    const format = outputFormat(args, ['json', 'text']);
    try {
      return await decodeFile(file, format, stdoutOutput(), (line) => process.stderr.write(`${line}\n`));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') return 0; // `flowagg decode x | head` is not an error
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EACCES') {
        process.stderr.write(`flowagg decode: cannot read ${file}: ${errorMessage(e)}\n`);
        return 1;
      }
      throw e;
    }
  },
};
