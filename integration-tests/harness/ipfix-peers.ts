// ipfixDump (libfixbuf-tools) and nfcapd/nfdump as independent decoders of what an IPFIX exporter sent:
// ipfixDump reads the messages as an IPFIX file (RFC 5655, as a TCP stream carries them), taught
// Antrea's elements with an element file; nfcapd receives the messages as UDP datagrams on loopback and
// nfdump prints the flows it stored.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlowaggError } from '../../lib/errors.js';
import { type Dump, parseIpfixDump } from '../../lib/ipfix/testing/ipfixdump.js';
import { allElements } from '../../lib/ipfix/registry.js';
import { HARNESS_TOOL_FAILED, findExecutable, runTool } from './tools.js';

const ANTREA_PEN = 56506;

/** libfixbuf's element file (IANA registry XML, enterprise in cert:enterpriseId) for Antrea's elements. */
export function antreaElementsXml(): string {
  const records = [...allElements()]
    .filter((ie) => ie.pen === ANTREA_PEN)
    .map((ie) => `<record><name>${ie.name}</name><dataType>${ie.type}</dataType><elementId>${ie.id}</elementId><cert:enterpriseId>${ANTREA_PEN}</cert:enterpriseId><dataTypeSemantics>default</dataTypeSemantics></record>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<registry xmlns="http://www.iana.org/assignments" xmlns:cert="http://www.cert.org/ipfix" id="ipfix">\n<registry id="ipfix-information-elements">\n${records.join('\n')}\n</registry>\n</registry>\n`;
}

async function inTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** ipfixDump's decoding of the messages, and the warnings it printed (problems it found in them). */
export function ipfixDumpMessages(messages: readonly Uint8Array[], signal?: AbortSignal): Promise<Dump & { warnings: string[] }> {
  return inTempDir('flowagg-ipfixdump-', async (dir) => {
    await writeFile(join(dir, 'export.ipfix'), Buffer.concat(messages));
    await writeFile(join(dir, 'antrea.xml'), antreaElementsXml());
    const run = await runTool('ipfixDump', ['-e', join(dir, 'antrea.xml'), '--in', join(dir, 'export.ipfix')], { timeoutMs: 120_000, env: { TZ: 'UTC' }, ...(signal && { signal }) });
    return { ...parseIpfixDump(run.stdout), warnings: run.stderr.split('\n').filter((l) => l.trim() !== '') };
  });
}

export type NfdumpFlow = Readonly<Record<string, string | number>>;

/** A UDP port free on 127.0.0.1 (bound, then closed). */
export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Sends the messages to a fresh nfcapd on loopback, stops it (which writes its file) and returns nfdump's flows. */
export function nfdumpMessages(messages: readonly Uint8Array[], signal?: AbortSignal): Promise<NfdumpFlow[]> {
  return inTempDir('flowagg-nfcapd-', async (dir) => {
    const port = await freeUdpPort();
    const child = spawn(findExecutable('nfcapd') ?? 'nfcapd', ['-p', String(port), '-b', '127.0.0.1', '-w', dir, '-t', '3600'], { stdio: ['ignore', 'pipe', 'pipe'], ...(signal && { signal }), killSignal: 'SIGKILL' });
    let output = '';
    const started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new FlowaggError(HARNESS_TOOL_FAILED, `nfcapd did not start within 30 s: ${output}`)), 30_000);
      const onData = (b: Buffer) => {
        output += b.toString();
        if (output.includes('Startup')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', (err) => reject(new FlowaggError(HARNESS_TOOL_FAILED, `nfcapd could not be started: ${err.message}`)));
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await started;
      const socket = createSocket('udp4');
      // One at a time: the default receive buffer would drop a burst.
      for (const m of messages) await new Promise<void>((resolve, reject) => socket.send(m, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      // nfcapd reads what is queued before it handles the signal; a short pause lets it drain the socket.
      await new Promise((r) => setTimeout(r, 500));
      child.kill('SIGINT');
      await exited;
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const files = (await readdir(dir)).filter((f) => f.startsWith('nfcapd.') && !f.includes('current'));
    if (files.length === 0) throw new FlowaggError(HARNESS_TOOL_FAILED, `nfcapd wrote no file; its output:\n${output}`);
    const flows: NfdumpFlow[] = [];
    for (const f of files.sort()) {
      const run = await runTool('nfdump', ['-r', join(dir, f), '-o', 'json'], { timeoutMs: 120_000, env: { TZ: 'UTC' }, ...(signal && { signal }) });
      flows.push(...(JSON.parse(run.stdout.trim() === '' ? '[]' : run.stdout) as NfdumpFlow[]));
    }
    return flows;
  });
}
