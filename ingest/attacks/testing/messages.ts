// Raw IPFIX built byte by byte for the attack tests: what a hostile sender sends is not what an encoder
// would produce (thousands of one-field templates, withdrawal storms, header-only messages), so these
// helpers write the wire format directly (RFC 7011 §3).

/** A message: header + sets. */
export function message(odid: number, sequence: number, sets: readonly Buffer[], exportTime = 1_700_000_000): Buffer {
  const body = Buffer.concat(sets);
  const header = Buffer.alloc(16);
  header.writeUInt16BE(10, 0);
  header.writeUInt16BE(16 + body.length, 2);
  header.writeUInt32BE(exportTime, 4);
  header.writeUInt32BE(sequence >>> 0, 8);
  header.writeUInt32BE(odid >>> 0, 12);
  return Buffer.concat([header, body]);
}

function set(id: number, content: Buffer): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt16BE(id, 0);
  b.writeUInt16BE(4 + content.length, 2);
  return Buffer.concat([b, content]);
}

/** A template field: element id, length, and enterprise number (0: IANA). */
export type Field = readonly [id: number, length: number, pen?: number];

/** A template set of (template id, fields) records. */
export function templateSet(templates: readonly (readonly [id: number, fields: readonly Field[]])[]): Buffer {
  const parts = templates.map(([id, fields]) => {
    const b = Buffer.alloc(4 + fields.reduce((n, [, , pen]) => n + (pen ? 8 : 4), 0));
    b.writeUInt16BE(id, 0);
    b.writeUInt16BE(fields.length, 2);
    let p = 4;
    for (const [ie, len, pen] of fields) {
      b.writeUInt16BE(pen ? ie | 0x8000 : ie, p);
      b.writeUInt16BE(len, p + 2);
      if (pen) b.writeUInt32BE(pen, p + 4);
      p += pen ? 8 : 4;
    }
    return b;
  });
  return set(2, Buffer.concat(parts));
}

/** `n` "withdraw all templates" records (template id 2, field count 0) in one template set. */
export function withdrawAllSet(n: number): Buffer {
  const b = Buffer.alloc(4 * n);
  for (let i = 0; i < n; i++) b.writeUInt16BE(2, 4 * i);
  return set(2, b);
}

export function dataSet(templateId: number, records: Buffer): Buffer {
  return set(templateId, records);
}

/** Templates ids from..from+n-1, each of the given fields. */
export function manyTemplates(from: number, n: number, fields: readonly Field[]): [number, readonly Field[]][] {
  return Array.from({ length: n }, (_, i) => [from + i, fields]);
}

/** A template `n` fields wide (sourceIPv4Address, then enterprise elements nobody registered); `variant` makes distinct layouts. */
export function wideFields(n: number, variant = 0): Field[] {
  return Array.from({ length: n }, (_, i): Field => (i === 0 ? [8, 4] : [i, 4, 40_000 + variant]));
}
