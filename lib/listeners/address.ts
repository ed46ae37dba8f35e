// Exporter addresses as people and the FlowRecord expect them: an IPv4 exporter reaching a dual-stack
// socket shows up as "::ffff:10.0.0.1", which is the same exporter as "10.0.0.1".
export function exporterAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export interface Endpoint {
  readonly address: string;
  readonly port: number;
}
