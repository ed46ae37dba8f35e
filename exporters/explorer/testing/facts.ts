// Flow facts for the explorer's tests and benchmark, without records: a Pod-to-Pod flow by default.
import type { FlowFacts } from '../flow-facts.js';

export const pod = (namespace: string, name: string, workload = name.replace(/-[a-z0-9]+$/, '')) => ({ namespace, workload, pod: name });
export const external = (address: string) => ({ namespace: 'external', workload: address, pod: address });

export function facts(fields: Partial<FlowFacts> = {}): FlowFacts {
  return {
    time: 1_800_000_000_000, bytes: 1000, packets: 10,
    source: pod('shop', 'web-1'), destination: pod('payments', 'api-1'),
    node: 'node-0', service: '', external: '', denial: undefined,
    ...fields,
  };
}

/**
 * The i-th of `count` flows of a flood spread over `spanMs` from `start`: every one a distinct pair of Pods
 * (a distinct 5-tuple); `first` numbers a flood's flows after another's.
 */
export function floodFacts(at: number, count: number, start: number, spanMs: number, first = 0): FlowFacts {
  const i = first + at;
  return facts({
    time: start + Math.floor((at / count) * spanMs),
    bytes: 64 + (i % 1500),
    packets: 1,
    source: pod(`ns-${i % 50}`, `client-${i}-abcde`),
    destination: pod(`ns-${(i >> 3) % 50}`, `server-${i >> 1}-fghij`),
    node: `node-${i % 5000}`,
    external: i % 7 === 0 ? `203.0.${(i >> 8) & 255}.${i & 255}` : '',
    service: `ns-${i % 50}/svc-${i % 997}:http`,
  });
}
