// Antrea's clickHouse.databaseURL forms (tcp, tls, http, https; no path, query or user info) mapped to
// the HTTP interface @clickhouse/client speaks. The native protocol (tcp, tls) cannot be spoken, so a
// native URL on the server's default native port is taken to mean the same server's default HTTP port;
// on any other port flowagg cannot know the HTTP port, and refuses the URL with what to write instead.
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
const NATIVE = { tcp: { port: '9000', http: 'http', httpPort: '8123' }, tls: { port: '9440', http: 'https', httpPort: '8443' } } as const;

function invalid(url: string, why: string): FlowaggError {
  return new FlowaggError(CLICKHOUSE_CONFIG, `${KEY} "${url}": ${why}`, { context: { key: KEY, value: url } });
}

export function httpEndpoint(databaseURL: string): HttpEndpoint {
  let u: URL;
  try {
    u = new URL(databaseURL);
  } catch {
    throw invalid(databaseURL, 'not a URL (examples: http://clickhouse:8123, https://clickhouse:8443, tcp://clickhouse:9000)');
  }
  const scheme = u.protocol.slice(0, -1);
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.username !== '' || u.password !== '') {
    throw invalid(databaseURL, 'path, query string or user info must not be set (credentials come from CH_USERNAME and CH_PASSWORD)');
  }
  if (u.hostname === '') throw invalid(databaseURL, 'no host');
  if (scheme === 'http' || scheme === 'https') {
    return { url: `${scheme}://${u.host}`, tls: scheme === 'https' };
  }
  if (scheme === 'tcp' || scheme === 'tls') {
    const native = NATIVE[scheme];
    const port = u.port === '' ? native.port : u.port;
    if (port !== native.port) {
      throw invalid(
        databaseURL,
        `${scheme}:// is ClickHouse's native protocol, which flowagg does not speak; give the server's HTTP interface instead, ` +
          `for example ${native.http}://${u.hostname}:${native.httpPort}`,
      );
    }
    return { url: `${native.http}://${u.hostname}:${native.httpPort}`, tls: scheme === 'tls', mappedFrom: databaseURL };
  }
  throw invalid(databaseURL, `the scheme ${scheme} is not supported (tcp, tls, http or https)`);
}
