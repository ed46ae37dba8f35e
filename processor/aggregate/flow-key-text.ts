// The parts of a flow key (schemas/flow-key.ts) kept as a latin1 string in the flow store:
//   family (1) | source address (4, 16 or 0) | destination address | protocol (1) | source port (2 BE) | destination port (2 BE)
// A key without addresses (family 0) reads as IPv4 0.0.0.0, as Antrea exports missing addresses.

const FAMILY_V6 = 6;
const ZERO_V4 = '\u0000'.repeat(4);

/** 4 or 6. */
export function keyFamily(key: string): 4 | 6 {
  return key.charCodeAt(0) === FAMILY_V6 ? 6 : 4;
}

function addressLength(key: string): number {
  const family = key.charCodeAt(0);
  return family === FAMILY_V6 ? 16 : family === 4 ? 4 : 0;
}

/** The source (0) or destination (1) address as latin1 bytes. */
export function keyAddress(key: string, which: 0 | 1): string {
  const len = addressLength(key);
  return len === 0 ? ZERO_V4 : key.slice(1 + which * len, 1 + (which + 1) * len);
}

export function keyProtocol(key: string): number {
  return key.charCodeAt(1 + 2 * addressLength(key));
}

/** The source (0) or destination (1) port. */
export function keyPort(key: string, which: 0 | 1): number {
  const p = 2 + 2 * addressLength(key) + 2 * which;
  return (key.charCodeAt(p) << 8) | key.charCodeAt(p + 1);
}

/** The key's bytes. */
export function keyBuffer(key: string): Buffer {
  return Buffer.from(key, 'latin1');
}
