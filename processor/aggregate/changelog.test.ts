// A flow's stats record read back: every column of its rows, from the current layout and from the one
// before the Float64 row's last column (F_PEER_WAIT) was added, which a running processor.state may hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { applyChangelogRecord, encodeProgress, encodeStats, encodeWatermark, PROGRESS_KEY, WATERMARK_KEY } from './changelog.js';
import { F_PEER_WAIT, F_WIDTH, U_DIRTY, U_WIDTH } from './columns.js';
import { FlowStore } from './store.js';

/** A flow key without addresses (6 bytes, as the store keys flows of no address family). */
const KEY = Buffer.from([6, 0, 0x1f, 0x90, 0x01, 0xbb]);

function storedFlow(): { store: FlowStore; slot: number } {
  const store = new FlowStore();
  const slot = store.add(KEY.toString('latin1'));
  for (let c = 0; c < F_WIDTH; c++) store.f64[slot * F_WIDTH + c] = 1000 + c * 0.5;
  for (let c = 0; c < U_WIDTH; c++) if (c !== U_DIRTY) store.u8[slot * U_WIDTH + c] = c + 1;
  return { store, slot };
}

/** A flow's stats record, as encodeStats writes it. */
function statsValue(store: FlowStore, slot: number): Buffer {
  const b = new RecordBuffer();
  const start = encodeStats(store, slot, b);
  return Buffer.from(b.buf.subarray(start, b.pos));
}

const row = (store: FlowStore, slot: number) => [...store.f64.subarray(slot * F_WIDTH, (slot + 1) * F_WIDTH)];

test('a stats record restores every column of the flow', () => {
  const { store, slot } = storedFlow();
  const value = statsValue(store, slot);
  const restored = new FlowStore();
  assert.deepEqual(applyChangelogRecord(restored, KEY, value), { kind: 'stats', flowKey: KEY.toString('latin1') });
  const at = restored.slotOf(KEY.toString('latin1'));
  assert.deepEqual(row(restored, at), row(store, slot));
  assert.equal(restored.u8[at * U_WIDTH + 1], 2);
});

test('a stats record written before F_PEER_WAIT restores with no wait in receive time; any other length is refused', () => {
  const { store, slot } = storedFlow();
  const value = statsValue(store, slot);
  const restored = new FlowStore();
  applyChangelogRecord(restored, KEY, value.subarray(0, value.length - 8));
  const at = restored.slotOf(KEY.toString('latin1'));
  const expected = row(store, slot);
  expected[F_PEER_WAIT] = 0;
  assert.deepEqual(row(restored, at), expected);
  assert.throws(() => applyChangelogRecord(new FlowStore(), KEY, value.subarray(0, value.length - 16)), /bytes, a stats record has/);
});

test('the watermark and progress records read back; a watermark written before checkpoints has no outputs counted', () => {
  const checkpoint = { watermark: 1_700_000_000_123, received: 1_700_000_000_456, nextSeq: 42, inputOffset: 9_001, outputs: 77 };
  assert.deepEqual(applyChangelogRecord(new FlowStore(), WATERMARK_KEY, encodeWatermark(checkpoint)), { kind: 'watermark', ...checkpoint });
  assert.deepEqual(applyChangelogRecord(new FlowStore(), WATERMARK_KEY, encodeWatermark(checkpoint).subarray(0, 34)), { kind: 'watermark', ...checkpoint, outputs: 0 });
  assert.deepEqual(applyChangelogRecord(new FlowStore(), PROGRESS_KEY, encodeProgress({ inputOffset: 12_345, outputs: 99 })), { kind: 'progress', inputOffset: 12_345, outputs: 99 });
  assert.throws(() => applyChangelogRecord(new FlowStore(), PROGRESS_KEY, encodeWatermark(checkpoint)), /not a progress record/);
  assert.throws(() => applyChangelogRecord(new FlowStore(), WATERMARK_KEY, encodeProgress({ inputOffset: 1, outputs: 1 })), /not a watermark record/);
});
