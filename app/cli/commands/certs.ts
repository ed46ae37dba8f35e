// `flowagg certs show|issue`: the TLS material of the IPFIX collector (ingest.tls) as a person checks it,
// subjects, SANs, expiry and whether the collector would still use each certificate, and issuing it into
// a directory before the first start (to hand client.crt, client.key and ca.crt to exporters).
import { readFile } from 'node:fs/promises';
import { formatDiagnostic, loadConfig } from '../../../lib/config/load.js';
import { type Command, OUTPUT_OPTION, type ParsedArgs, UsageError, outputFormat, stringOption } from '../command.js';
import { formatTable } from '../../../lib/table.js';
import { type ServiceConfig, serviceConfigSchema } from '../../service-config.js';

const usage = `Usage: flowagg certs show [--config FILE] [--dir DIR] [-o table|json]
       flowagg certs issue [--config FILE] [--dir DIR] [--san NAME]... [-o table|json]

show    Prints the CA, server and client certificates the collector uses (ingest.tls: the directory,
        the Kubernetes Secrets, or the files of files mode): subject, issuer, SANs, validity, SHA-256
        fingerprint, and "ok" or why the collector would reissue (or, in files mode, refuse) it.
issue   Issues into a directory what is missing or due for renewal, exactly as the collector does on
        start (valid certificates are kept), then shows them. Give exporters client.crt, client.key
        and ca.crt.

Options:
  --config FILE   flowagg's configuration; its ingest.tls section says where the certificates are
  --dir DIR       the certificate directory (directory mode), instead of ingest.tls.dir
  --san NAME      issue: one more subject alternative name of the server certificate (repeatable)
  -o, --output F  table (default) or json
  -h, --help      show this help

Exit status: 0 when every certificate is present and ok, 1 otherwise, 2 for a usage error.
`;

function certsConfig(args: ParsedArgs, issuing: boolean): ServiceConfig {
  const dir = stringOption(args, 'dir');
  const sans = (args.values.san as string[] | undefined) ?? [];
  const overrides: Record<string, unknown> = {};
  if (dir !== undefined || issuing) overrides['ingest.tls.mode'] = 'directory';
  if (dir !== undefined) overrides['ingest.tls.dir'] = dir;
  const file = stringOption(args, 'config');
  const config = loadConfig(serviceConfigSchema, { ...(file !== undefined && { file }), overrides, report: (d) => void process.stderr.write(`${formatDiagnostic(d)}\n`) });
  return sans.length === 0 ? config : { ...config, ingest: { ...config.ingest, tls: { ...config.ingest.tls, extraSANs: [...config.ingest.tls.extraSANs, ...sans] } } };
}

async function readPair(certFile: string, keyFile: string) {
  const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  return { cert, key };
}

export async function runCerts(args: ParsedArgs, out: (s: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sub, ...extra] = args.positionals;
  if (sub !== 'show' && sub !== 'issue') throw new UsageError(sub === undefined ? 'give a subcommand: show or issue' : `unknown subcommand "${sub}" (show or issue)`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (sub === 'show' && args.values.san !== undefined) throw new UsageError('--san belongs to issue, not show');
  const format = outputFormat(args, ['table', 'json']);
  const config = certsConfig(args, sub === 'issue');
  const tls = config.ingest.tls;
  // Loaded here, not at the top: the Kubernetes client they import takes a while to load.
  const { certificateStore, createCertificateSource, resolveMode, resolveNamespace, serverNames } = await import('../../../lib/tls/index.js');
  const { describeCertificates } = await import('../../../lib/tls/describe.js');
  const mode = resolveMode(tls, env);
  const namespace = resolveNamespace(tls, env);
  const names = mode === 'files' ? [] : serverNames(tls, namespace, config.flowAggregatorAddress);
  if (sub === 'issue') {
    const source = createCertificateSource(tls, { flowAggregatorAddress: config.flowAggregatorAddress, env });
    await source.start();
    source.stop();
  }
  const slots =
    mode === 'files'
      ? [
          { slot: 'ca' as const, pair: { cert: await readFile(tls.caFile!, 'utf8'), key: '' } },
          { slot: 'server' as const, pair: await readPair(tls.certFile!, tls.keyFile!) },
        ]
      : await Promise.all((['ca', 'server', 'client'] as const).map(async (slot) => ({ slot, pair: (await certificateStore(tls, mode, namespace).load(slot)).pair })));
  const summaries = describeCertificates(slots, { now: new Date(), renewBeforeMs: mode === 'files' ? 0 : tls.renewBefore }, names);
  const where = mode === 'directory' ? tls.dir : mode === 'k8s' ? `Kubernetes namespace ${namespace}` : 'files';
  if (format === 'json') {
    out(`${JSON.stringify({ mode, where, certificates: summaries }, null, 2)}\n`);
  } else {
    out(`${mode}: ${where}\n`);
    out(
      formatTable(
        ['CERT', 'SUBJECT', 'SANS', 'NOT AFTER', 'STATUS'],
        summaries.map((s) => ('subject' in s ? [s.slot, s.subject, s.sans.join(', ') || '-', s.notAfter, s.status] : [s.slot, null, null, null, s.status])),
      ),
    );
  }
  return summaries.every((s) => s.status === 'ok') ? 0 : 1;
}

export const certsCommand: Command = {
  name: 'certs',
  usage,
  positionals: true,
  options: { ...OUTPUT_OPTION, config: { type: 'string' }, dir: { type: 'string' }, san: { type: 'string', multiple: true } },
  run: (args) => runCerts(args, (s) => void process.stdout.write(s)),
};
