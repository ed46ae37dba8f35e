// A faster record decoder for kafkajs's fetch path, installed by kafkajs.ts in place of
// recordBatch/record/v0/decoder.js. kafkajs computes every record's offset and timestamp with 64-bit
// BigInt arithmetic and string conversions, and rebuilds the headers object once per header; this does
// the same with exact Number arithmetic (offsets and millisecond timestamps are far below 2^53) and
// returns the same object, field for field (record-decoder.test.ts compares them). A delta too large for
// Number arithmetic goes through kafkajs's own 64-bit path.

/** The parts of kafkajs's Decoder this reads. */
export interface DecoderLike {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readVarInt(): number;
  readVarLong(): { toString(): string };
  readVarIntBytes(): Buffer | null;
  readVarIntString(): string | null;
}

export interface BatchContext {
  readonly firstOffset?: string;
  readonly firstTimestamp?: string;
  readonly magicByte?: number;
  readonly isControlBatch?: boolean;
  readonly timestampType?: number;
  readonly maxTimestamp?: string;
}

const LOG_APPEND_TIME = 1;
/** Varints of up to 7 bytes hold at most 49 bits: exact as Numbers. */
const EXACT_VARLONG_BYTES = 7;

/** The zigzag varlong at the decoder's position as a Number, or undefined (position unchanged) when it may not be exact. */
function readSmallVarLong(decoder: DecoderLike): number | undefined {
  const { buffer } = decoder;
  let pos = decoder.offset;
  let value = 0;
  let scale = 1;
  for (let i = 0; i < EXACT_VARLONG_BYTES; i++) {
    const byte = buffer[pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      decoder.offset = pos;
      return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    }
    scale *= 128;
  }
  return undefined;
}

/** `base + delta` as kafkajs writes it: a decimal string. */
function add(base: string | undefined, delta: number | { toString(): string }): string {
  if (typeof delta === 'number') {
    const sum = Number(base) + delta;
    if (Number.isSafeInteger(sum)) return String(sum);
  }
  return String(BigInt(base ?? 0) + BigInt(delta.toString()));
}

function readHeaders(decoder: DecoderLike): Record<string, Buffer | null | (Buffer | null)[]> {
  const headers: Record<string, Buffer | null | (Buffer | null)[]> = {};
  const count = decoder.readVarInt();
  for (let i = 0; i < count; i++) {
    const key = String(decoder.readVarIntString());
    const value = decoder.readVarIntBytes();
    const seen = headers[key];
    headers[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return headers;
}

export function decodeRecord(decoder: DecoderLike, batchContext: BatchContext = {}) {
  const { firstOffset, firstTimestamp, magicByte, isControlBatch = false, timestampType, maxTimestamp } = batchContext;
  const attributes = decoder.readInt8();
  const timestampDelta = readSmallVarLong(decoder) ?? decoder.readVarLong();
  const timestamp = timestampType === LOG_APPEND_TIME && maxTimestamp ? maxTimestamp : add(firstTimestamp, timestampDelta);
  const offset = add(firstOffset, decoder.readVarInt());
  const key = decoder.readVarIntBytes();
  const value = decoder.readVarIntBytes();
  const headers = readHeaders(decoder);
  return { magicByte, attributes, timestamp, offset, key, value, headers, isControlRecord: isControlBatch, batchContext };
}
