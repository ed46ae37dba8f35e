// What the collector received, read back from its stamped file (collector-file.ts): every record's latency,
// from the Agent's send to the collector's receipt. The simulator sends each record at the second it stamps
// as its flowEndSeconds (simulate/schedule.ts), and an aggregated record carries the newest of its
// records' flowEndSeconds, so receipt minus flowEndSeconds is how long the newest data in it took, the
// wait for the flow's next export (up to one active timeout, by design) included.
import { streamFrames } from '../../integration-tests/chaos/testing/collector-file.js';
import { doubled } from '../../lib/typed-arrays.js';
import { decodeMessage } from '../../lib/ipfix/decode-message.js';
import { TemplateStore } from '../../lib/ipfix/template-store.js';
import type { Template } from '../../lib/ipfix/types.js';

export interface Receipts {
  readonly records: number;
  /** Records received in each second since `from` (index = second). */
  readonly perSecond: number[];
  /** Latencies in seconds, in arrival order, and the second each arrived in. */
  readonly latencies: Float64Array;
  readonly seconds: Uint32Array;
}

export async function readReceipts(file: string, from: number): Promise<Receipts> {
  const stores = new Map<number, TemplateStore>();
  const flowEnd = new Map<Template, number>();
  const perSecond: number[] = [];
  let latencies = new Float64Array(1 << 20);
  let seconds = new Uint32Array(1 << 20);
  let n = 0;
  await streamFrames(file, true, (m) => {
    let store = stores.get(m.session);
    if (store === undefined) stores.set(m.session, (store = new TemplateStore({ transport: 'tcp' })));
    const second = Math.max(0, Math.floor((m.receivedAt - from) / 1000));
    for (const r of decodeMessage(m.bytes, store).records) {
      let at = flowEnd.get(r.template);
      if (at === undefined) flowEnd.set(r.template, (at = r.template.fields.findIndex((f) => f.ie.name === 'flowEndSeconds')));
      if (n === latencies.length) [latencies, seconds] = [doubled(latencies), doubled(seconds)];
      latencies[n] = (m.receivedAt - (r.values[at] as number) * 1000) / 1000;
      seconds[n++] = second;
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    }
  });
  return { records: n, perSecond: Array.from(perSecond, (c) => c ?? 0), latencies: latencies.subarray(0, n), seconds: seconds.subarray(0, n) };
}
