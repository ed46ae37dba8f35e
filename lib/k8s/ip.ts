// IP text as flow records carry it (dotted IPv4, RFC 5952 IPv6), so that a Pod's IPs from the API server
// or an inventory file written by hand ("2001:DB8::0001") match the addresses ingest decoded.
import { formatIpv4, formatIpv6, parseIpv4Into, parseIpv6Into } from '../ipfix/text.js';

const scratch = new Uint8Array(16);

/** The canonical text of an IPv4 or IPv6 address, or undefined when `text` is not one. */
export function canonicalIp(text: string): string | undefined {
  const s = text.trim();
  if (parseIpv4Into(s, scratch, 0)) return formatIpv4(scratch, 0);
  if (s.includes(':') && parseIpv6Into(s, scratch, 0)) return formatIpv6(scratch, 0);
  return undefined;
}

/** The IPv4 address in `text` as an unsigned 32-bit number, or undefined when it is not dotted IPv4. */
export function ipv4Number(text: string): number | undefined {
  if (!parseIpv4Into(text, scratch, 0)) return undefined;
  return ((scratch[0]! << 24) | (scratch[1]! << 16) | (scratch[2]! << 8) | scratch[3]!) >>> 0;
}

/** How the store keys a Pod IP: IPv4 as its number, IPv6 as its canonical text. */
export function ipKey(canonical: string): string | number {
  return ipv4Number(canonical) ?? canonical;
}
