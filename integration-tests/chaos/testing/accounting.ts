// What the Agents sent against what flows.raw holds, Node by Node. IPFIX has no acknowledgement, so a record
// an Agent wrote may have been lost with the ingest replica that had it in its socket buffer or its queue
// when it was killed; what is missing must be accounted for, and nothing else may be:
// - UDP (behind the balancer, or straight to `flowagg run`): the records missing are exactly those the
//   message sequence numbers in flows.raw say are missing, computed as ingest's sequence audit computes them
//   (ingest/sequence-audit.ts), less those the Agent counted lost itself (a send refused while no collector
//   listened: never sent, but numbered), plus the Node's tail: records written after its last message in
//   flows.raw, which no later sequence number can show. A tail is accounted for only if an ingest replica
//   was killed or the broker went down after that last message (and nothing the Agent sent afterwards
//   reached flows.raw before it stopped);
// - TCP and gRPC: a stream loses at most what was in flight when its replica died, so a Node is missing
//   records only if a connection of it broke, at most a bound per broken connection: the Node's own records
//   (at its rate, not the Agents' average: Nodes differ by a tenth or more) of the last seconds before a
//   kill, of the broker's longest outage, during which ingest holds what it received (to the kill, when
//   the kill comes before ingest has caught up after the broker returned: chaos CI of b6e77b7, seed 678072,
//   the broker back after 13.5 s and a replica killed 2.8 s later, 173 records of 23.6 s), and of a replica's
//   longest stall, during which what the Node sent waits unread (a replica stalled while the broker was
//   down and then killed loses all three: chaos CI of 464b8ea, seed 538033, 156 records of 27 s); inside
//   the Node's last TCP session, open until the end, nothing is missing (its sequence numbers have no gap; a
//   session that broke may have one: the replica that died had written a later message's records to one
//   partition but not an earlier one's to another). A connection broke when the Agent made another after
//   it, or was not connected at the end.
// In flows.raw, no Node has more, in records or in any sum, than it sent.
import { SequenceAudit } from '../../../ingest/sequence-audit.js';
import { DELTA_COUNTERS, type DeltaCounter } from '../../../simulate/counters.js';
import type { SimulationReport } from '../../../simulate/report.js';
import type { KeyedRecord } from './log-contents.js';

/** Seconds of a Node's records a replica may hold unacknowledged when it is killed, besides a broker outage. */
const IN_FLIGHT_SECONDS = 10;

export interface NodeAccount {
  readonly node: string;
  readonly transport: string;
  readonly sent: number;
  readonly inRaw: number;
  readonly missing: number;
  /** What the sequence numbers say is missing (UDP), or the bound on it (TCP, gRPC). */
  readonly accountedFor: number;
  /** Connections of the Node that ended before the Agent did. */
  readonly breaks: number;
  /** Records the Agent counted lost: written to a connection that failed before the write was confirmed. */
  readonly lost: number;
}

export interface Accounting {
  readonly nodes: readonly NodeAccount[];
  readonly problems: readonly string[];
}

/**
 * Records lost, judged as ingest's audit judges them, per exporter address (`per: 'address'`, UDP), or per
 * session, address and port (`per: 'session'`, TCP), with the session last heard from each address.
 */
function auditedLoss(raw: readonly KeyedRecord[], transport: 'udp' | 'tcp', per: 'address' | 'session'): { lost: Map<string, number>; last: Map<string, string> } {
  // Every message is gathered before it is judged (settle at the end): the audit's bound on pending messages
  // (for ingest's memory) would judge a stream early, and a message whose records were not all added yet
  // would count its other records lost.
  const audit = new SequenceAudit({ settleMs: 0, maxPending: Number.POSITIVE_INFINITY });
  const lost = new Map<string, number>();
  const last = new Map<string, string>();
  const note = (findings: readonly { exporter: string; lost: number }[]) => findings.forEach((f) => lost.set(f.exporter, (lost.get(f.exporter) ?? 0) + f.lost));
  const records = raw.map((r) => r.record).filter((r) => r.transport === transport).sort((a, b) => a.receiveTime - b.receiveTime);
  for (const r of records) {
    const session = `${r.exporterAddress}:${r.exporterPort}/${r.transport}`;
    last.set(r.exporterAddress, session);
    note(audit.add(per === 'address' ? r.exporterAddress : session, session, r.observationDomainId, r.sequenceNumber, r.receiveTime));
  }
  note(audit.settle(Infinity));
  return { lost, last };
}

/** Per UDP exporter address, the first sequence number in flows.raw and the one after its last message, to say where a loss is. */
function udpSpan(raw: readonly KeyedRecord[]): Map<string, { first: number; end: number; lastReceived: number }> {
  const perMessage = new Map<string, { address: string; sequence: number; records: number; receiveTime: number }>();
  for (const { record: r } of raw) {
    if (r.transport !== 'udp') continue;
    const key = `${r.exporterAddress}/${r.observationDomainId}/${r.sequenceNumber}`;
    const m = perMessage.get(key) ?? { address: r.exporterAddress, sequence: r.sequenceNumber, records: 0, receiveTime: r.receiveTime };
    m.records++;
    perMessage.set(key, m);
  }
  const spans = new Map<string, { first: number; end: number; lastReceived: number }>();
  for (const m of perMessage.values()) {
    const s = spans.get(m.address) ?? { first: m.sequence, end: 0, lastReceived: 0 };
    s.first = Math.min(s.first, m.sequence);
    if (m.sequence + m.records > s.end) [s.end, s.lastReceived] = [m.sequence + m.records, m.receiveTime];
    spans.set(m.address, s);
  }
  return spans;
}

/** What the events did that may lose records: the longest broker outage, and when ingest lost what it held. */
export interface Disruptions {
  /** The longest time ingest held records for the broker (brokerHoldSeconds). */
  readonly longestBrokerHoldSeconds: number;
  /** The longest SIGSTOP of an ingest replica (or `flowagg run`). */
  readonly longestIngestStallSeconds: number;
  /** When an ingest replica was killed or the broker went down, ms since the epoch. */
  readonly at: readonly number[];
}

/** Seconds ingest takes after the broker returns to reconnect and write what it held. */
const CATCH_UP_SECONDS = 10;

/**
 * The longest time ingest held records because the broker was down: an outage's length, or, for a replica
 * killed during an outage or before it caught up after one, the time from the outage's start to the kill.
 */
export function brokerHoldSeconds(brokerDown: readonly { from: number; to: number }[], ingestKilled: readonly number[]): number {
  let hold = 0;
  for (const w of brokerDown) {
    hold = Math.max(hold, w.to - w.from);
    for (const k of ingestKilled) if (k >= w.from && k <= w.to + CATCH_UP_SECONDS * 1000) hold = Math.max(hold, k - w.from);
  }
  return hold / 1000;
}

/** A kill is played a moment after the schedule says; a replica's last write may come that much after it. */
const EVENT_SLACK_MS = 1000;

export function accountFor(reports: readonly SimulationReport[], raw: readonly KeyedRecord[], disruptions: Disruptions): Accounting {
  const { longestBrokerHoldSeconds, longestIngestStallSeconds } = disruptions;
  const inRaw = new Map<number, { records: number } & Record<DeltaCounter, number>>();
  for (const { record } of raw) {
    const s = inRaw.get(record.observationDomainId) ?? { records: 0, packetDeltaCount: 0, octetDeltaCount: 0, reversePacketDeltaCount: 0, reverseOctetDeltaCount: 0 };
    inRaw.set(record.observationDomainId, s);
    s.records++;
    for (const c of DELTA_COUNTERS) s[c] += Number(record[c] ?? 0);
  }
  const udpLoss = auditedLoss(raw, 'udp', 'address').lost;
  const spans = udpSpan(raw);
  const tcp = auditedLoss(raw, 'tcp', 'session');
  const problems: string[] = [];
  const nodes: NodeAccount[] = [];
  for (const report of reports) {
    const perNodeRate = report.rate.achieved / report.nodes.length;
    for (const n of report.nodes) {
      const have = inRaw.get(n.observationDomainId);
      const got = have?.records ?? 0;
      const missing = n.records - got;
      const breaks = n.connects - (n.connected ? 1 : 0);
      for (const c of DELTA_COUNTERS) {
        if ((have?.[c] ?? 0) > n[c]) problems.push(`${n.name}: flows.raw holds more ${c} (${have?.[c]}) than it sent (${n[c]})`);
      }
      let accountedFor: number;
      if (report.transport === 'udp') {
        // The sequence numbers count every record the Agent wrote, those it counted lost included (a send
        // refused while nothing listened on the port): those were never sent, and are not missing.
        const span = spans.get(n.sourceAddress ?? '');
        const written = n.records + n.lost;
        const tail = span === undefined ? written : written - span.end;
        const tailExplained = disruptions.at.some((t) => t >= (span?.lastReceived ?? 0) - EVENT_SLACK_MS);
        accountedFor = (udpLoss.get(n.sourceAddress ?? '') ?? 0) + (tailExplained ? tail : 0) - n.lost;
        const where = span === undefined ? 'none in flows.raw' : `sequence numbers ${span.first} to ${span.end} in flows.raw, ${tail} written after its last message (received ${new Date(span.lastReceived).toISOString()})${tailExplained ? ', an ingest replica or the broker lost them' : ', no event after it'}`;
        if (missing !== accountedFor) problems.push(`${n.name} (udp): ${missing} records missing from flows.raw, the sequence numbers account for ${accountedFor} (less ${n.lost} the Agent counted lost); ${where}`);
      } else {
        const nodeRate = Math.max(perNodeRate, (n.records * 1000) / report.durationMs);
        accountedFor = Math.ceil(breaks * nodeRate * (IN_FLIGHT_SECONDS + longestBrokerHoldSeconds + longestIngestStallSeconds));
        if (missing > accountedFor) problems.push(`${n.name} (${report.transport}): ${missing} records missing from flows.raw after ${breaks} broken connections, at most ${accountedFor} accounted for`);
        const lastSession = report.transport === 'tcp' && n.connected ? tcp.last.get(n.sourceAddress ?? '') : undefined;
        const inside = lastSession === undefined ? 0 : (tcp.lost.get(lastSession) ?? 0);
        if (inside > 0) problems.push(`${n.name} (tcp): ${inside} records missing inside its session open to the end (${lastSession}: gaps in its sequence numbers)`);
      }
      if (missing < 0) problems.push(`${n.name}: flows.raw holds ${got} records, it sent ${n.records}`);
      nodes.push({ node: n.name, transport: report.transport, sent: n.records, inRaw: got, missing, accountedFor, breaks, lost: n.lost });
    }
  }
  return { nodes, problems };
}
