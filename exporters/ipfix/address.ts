// Antrea's flowCollector.address: `<host>:<port>[:<proto>]`, IPv6 hosts in brackets (`[fd00::1]:4739:udp`).
// The port defaults to 4739 (also when empty, `host::udp`) and the protocol to tcp. `tls` as the protocol
// is TCP with TLS (Antrea takes it and then fails at connect time; flowagg says what it means). Anything
// else is refused here, at start.
import { isIP } from 'node:net';

export type CollectorTransport = 'tcp' | 'udp';

export interface CollectorAddress {
  readonly host: string;
  readonly port: number;
  readonly transport: CollectorTransport;
  /** The address asked for TLS (`:tls`). */
  readonly tls: boolean;
}

const DEFAULT_PORT = 4739;

/** The parsed address, or the reason it is not one (a sentence for the configuration error). */
export function parseCollectorAddress(text: string): CollectorAddress | string {
  const value = text.trim();
  if (value === '') return 'is empty: give the collector as <host>:<port>[:<proto>]';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return `"${text}" is a URL; give <host>:<port>[:<proto>] with proto tcp, udp or tls (no scheme)`;
  let host: string;
  let rest: string[];
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0) return `"${text}": the IPv6 address has no closing bracket`;
    host = value.slice(1, close);
    if (isIP(host) !== 6) return `"${text}": ${host} in brackets is not an IPv6 address`;
    const after = value.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return `"${text}": expected ":" after "]"`;
    rest = after === '' ? [] : after.slice(1).split(':');
  } else {
    const parts = value.split(':');
    if (parts.length > 3) return `"${text}": an IPv6 address must be in brackets, as [fd00::1]:4739`;
    host = parts[0]!;
    rest = parts.slice(1);
  }
  if (host === '') return `"${text}" has no host`;
  const [portText, proto] = rest;
  let port = DEFAULT_PORT;
  // `host::udp`: an empty port before a protocol is the default port, as Antrea's ParseFlowCollectorAddr takes it.
  if (portText !== undefined && !(portText === '' && proto !== undefined)) {
    if (!/^\d+$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return `"${text}": port "${portText}" is not a number in 1..65535`;
    port = Number(portText);
  }
  const p = (proto ?? 'tcp').toLowerCase();
  if (p !== 'tcp' && p !== 'udp' && p !== 'tls') return `"${text}": protocol "${proto}" is not supported (tcp, udp or tls)`;
  return { host, port, transport: p === 'udp' ? 'udp' : 'tcp', tls: p === 'tls' };
}
