// Addresses as a client on this machine sees the API server.
import { isIP } from 'node:net';

/** A URL for a client on this machine: loopback for a server bound to every address. */
export function localUrl(protocol: 'http' | 'https', host: string | undefined, port: number): string {
  const local = host === undefined || host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `${protocol}://${isIP(local) === 6 ? `[${local}]` : local}:${port}`;
}

/** localhost, ::1 or 127.0.0.0/8 (a URL's hostname may keep IPv6 brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}
