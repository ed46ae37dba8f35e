// Antrea's clickHouse.databaseURL forms (tcp, tls, http, https; no path, query or user info) mapped to
// the HTTP interface @clickhouse/client speaks. Antrea's chart names the native protocol
// (tcp://…:9000), which flowagg cannot speak: a native URL is taken to mean the same host's HTTP
// interface, on clickHouse.httpPort when it is set, else on the server's default HTTP port when the URL
// names the default native port. On any other native port flowagg cannot know the HTTP port, and the
// error says to set httpPort.
import { FlowaggError } from '../../lib/errors.js';
import { CLICKHOUSE_CONFIG } from './errors.js';

export interface HttpEndpoint {
  /** http://host:port or https://host:port */
  readonly url: string;
  readonly tls: boolean;
  /** Set when the configured URL was a native one that was mapped: said in the startup log. */
  readonly mappedFrom?: string;
}

const KEY = 'clickHouse.databaseURL';
const NATIVE = { tcp: { port: '9000', http: 'http', httpPort: 8123 }, tls: { port: '9440', http: 'https', httpPort: 8443 } } as const;

/** The HTTP endpoint of `databaseURL`, or why there is none (a sentence that says what to set). */
export function resolveEndpoint(databaseURL: string, httpPort?: number): HttpEndpoint | string {
  let u: URL;
  try {
    u = new URL(databaseURL);
  } catch {
    return 'not a URL (examples: http://clickhouse:8123, https://clickhouse:8443, tcp://clickhouse:9000)';
  }
  const scheme = u.protocol.slice(0, -1);
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.username !== '' || u.password !== '') {
    return 'path, query string or user info must not be set (credentials come from CH_USERNAME and CH_PASSWORD)';
  }
  if (u.hostname === '') return 'no host';
  if (scheme === 'http' || scheme === 'https') {
    if (httpPort !== undefined) return `clickHouse.httpPort is for a tcp:// or tls:// URL; an ${scheme}:// URL names its port itself: remove httpPort`;
    return { url: `${scheme}://${u.host}`, tls: scheme === 'https' };
  }
  if (scheme !== 'tcp' && scheme !== 'tls') return `the scheme ${scheme} is not supported (tcp, tls, http or https)`;
  const native = NATIVE[scheme];
  const port = u.port === '' ? native.port : u.port;
  if (httpPort === undefined && port !== native.port) {
    return (
      `${scheme}:// is ClickHouse's native protocol, which flowagg does not speak (it uses the HTTP interface), and port ${port} is not the ` +
      `native default (${native.port}), so the HTTP port cannot be inferred: set clickHouse.httpPort to that server's HTTP port ` +
      `(its ${scheme === 'tls' ? 'https_port' : 'http_port'} setting, ${native.httpPort} by default), or write databaseURL as ${native.http}://${u.hostname}:<HTTP port>`
    );
  }
  return { url: `${native.http}://${u.hostname}:${httpPort ?? native.httpPort}`, tls: scheme === 'tls', mappedFrom: databaseURL };
}

/** The HTTP endpoint of a clickHouse section, or a FlowaggError naming the key. */
export function httpEndpoint(databaseURL: string, httpPort?: number): HttpEndpoint {
  const endpoint = resolveEndpoint(databaseURL, httpPort);
  if (typeof endpoint === 'string') throw new FlowaggError(CLICKHOUSE_CONFIG, `${KEY} "${databaseURL}": ${endpoint}`, { context: { key: KEY, value: databaseURL } });
  return endpoint;
}
