// Deterministic synthetic traffic: a set of conversations (TCP with handshake and close, UDP and ICMP
// request/response, over IPv4 and IPv6) rendered as time-ordered Ethernet frames, together with what a
// flow meter must report for each direction of each conversation. Tests feed the frames to softflowd and
// check the exported records against these expectations.
import { type IpPacket, type Transport, ethernetFrame, ipLength, TCP_ACK, TCP_FIN, TCP_PSH, TCP_RST, TCP_SYN } from './packets.js';
import type { PcapPacket } from '../../lib/capture/testing/pcap-files.js';
import { seededRandom } from '../../lib/prng.js';

export interface Conversation {
  readonly proto: 'tcp' | 'udp' | 'icmp';
  readonly client: string;
  readonly server: string;
  /** Ignored for ICMP. */
  readonly clientPort: number;
  readonly serverPort: number;
  readonly startUs: number;
  /** Gap between consecutive packets of the conversation. */
  readonly gapUs: number;
  /** Request/response exchanges after the TCP handshake (or in total for UDP/ICMP). */
  readonly exchanges: number;
  readonly requestBytes: number;
  /** 0: the server never answers (UDP, ICMP) or answers with bare ACKs (TCP). */
  readonly responseBytes: number;
  /** How a TCP conversation ends. */
  readonly close: 'fin' | 'rst';
  readonly tos: number;
}

/** The directional 5-tuple and IP version of a flow. */
export interface FlowTuple {
  readonly ipVersion: 4 | 6;
  readonly proto: number;
  readonly src: string;
  readonly dst: string;
  /** 0 for ICMP. */
  readonly srcPort: number;
  readonly dstPort: number;
}

/** One direction of a conversation, as a flow meter counts it. */
export interface DirectionFlow extends FlowTuple {
  readonly packets: number;
  /** IP bytes, headers included. */
  readonly octets: number;
  readonly firstUs: number;
  readonly lastUs: number;
  /** OR of the TCP flags seen; 0 for other protocols. */
  readonly tcpFlags: number;
  readonly tos: number;
  /** type * 256 + code of the last ICMP message in this direction; 0 for other protocols. */
  readonly icmpTypeCode: number;
}

export interface ConversationFlows {
  readonly conversation: Conversation;
  readonly forward: DirectionFlow;
  /** Undefined when the server sent nothing. */
  readonly reverse: DirectionFlow | undefined;
}

export interface Traffic {
  readonly packets: PcapPacket[];
  readonly conversations: ConversationFlows[];
}

interface Step {
  readonly fromClient: boolean;
  readonly transport: Transport;
  readonly payload: number;
}

function steps(c: Conversation, v6: boolean): Step[] {
  const out: Step[] = [];
  const port = (fromClient: boolean) =>
    fromClient ? { srcPort: c.clientPort, dstPort: c.serverPort } : { srcPort: c.serverPort, dstPort: c.clientPort };
  // Sequence numbers advance by payload and by one for SYN and FIN, so tshark sees a clean conversation.
  const next = { client: 1000, server: 5000 };
  const tcp = (fromClient: boolean, flags: number, payload = 0) => {
    const [own, peer] = fromClient ? (['client', 'server'] as const) : (['server', 'client'] as const);
    out.push({ fromClient, payload, transport: { kind: 'tcp', ...port(fromClient), flags, seq: next[own], ack: next[peer] } });
    next[own] += payload + (flags & (TCP_SYN | TCP_FIN) ? 1 : 0);
  };
  const datagram = (fromClient: boolean, payload: number) => {
    const transport: Transport =
      c.proto === 'udp'
        ? { kind: 'udp', ...port(fromClient) }
        : { kind: 'icmp', type: fromClient ? (v6 ? 128 : 8) : v6 ? 129 : 0, code: 0 };
    out.push({ fromClient, payload, transport });
  };

  if (c.proto === 'tcp') {
    tcp(true, TCP_SYN);
    tcp(false, TCP_SYN | TCP_ACK);
    tcp(true, TCP_ACK);
    for (let i = 0; i < c.exchanges; i++) {
      tcp(true, TCP_PSH | TCP_ACK, c.requestBytes);
      if (c.responseBytes > 0) tcp(false, TCP_PSH | TCP_ACK, c.responseBytes);
      else tcp(false, TCP_ACK);
    }
    if (c.close === 'rst') tcp(true, TCP_RST);
    else {
      tcp(true, TCP_FIN | TCP_ACK);
      tcp(false, TCP_FIN | TCP_ACK);
      tcp(true, TCP_ACK);
    }
  } else {
    for (let i = 0; i < c.exchanges; i++) {
      datagram(true, c.requestBytes);
      if (c.responseBytes > 0) datagram(false, c.responseBytes);
    }
  }
  return out;
}

function emptyDirection(c: Conversation, fromClient: boolean, ipVersion: 4 | 6, proto: number): DirectionFlow {
  const icmp = c.proto === 'icmp';
  return {
    ipVersion,
    proto,
    src: fromClient ? c.client : c.server,
    dst: fromClient ? c.server : c.client,
    srcPort: icmp ? 0 : fromClient ? c.clientPort : c.serverPort,
    dstPort: icmp ? 0 : fromClient ? c.serverPort : c.clientPort,
    packets: 0,
    octets: 0,
    firstUs: 0,
    lastUs: 0,
    tcpFlags: 0,
    tos: c.tos,
    icmpTypeCode: 0,
  };
}

function addPacket(d: DirectionFlow, timeUs: number, bytes: number, t: Transport): DirectionFlow {
  return {
    ...d,
    packets: d.packets + 1,
    octets: d.octets + bytes,
    firstUs: d.packets === 0 ? timeUs : d.firstUs,
    lastUs: timeUs,
    tcpFlags: t.kind === 'tcp' ? d.tcpFlags | t.flags : 0,
    icmpTypeCode: t.kind === 'icmp' ? t.type * 256 + t.code : 0,
  };
}

export function renderTraffic(conversations: readonly Conversation[]): Traffic {
  const packets: PcapPacket[] = [];
  const flows = conversations.map((c): ConversationFlows => {
    const v6 = c.client.includes(':');
    const ipVersion = v6 ? 6 : 4;
    const proto = c.proto === 'tcp' ? 6 : c.proto === 'udp' ? 17 : v6 ? 58 : 1;
    let forward = emptyDirection(c, true, ipVersion, proto);
    let reverse = emptyDirection(c, false, ipVersion, proto);
    steps(c, v6).forEach((s, i) => {
      const timeUs = c.startUs + i * c.gapUs;
      const packet: IpPacket = {
        src: s.fromClient ? c.client : c.server,
        dst: s.fromClient ? c.server : c.client,
        transport: s.transport,
        payload: s.payload,
        tos: c.tos,
      };
      const frame = ethernetFrame(packet);
      packets.push({ timeUs, frame });
      if (s.fromClient) forward = addPacket(forward, timeUs, ipLength(frame), s.transport);
      else reverse = addPacket(reverse, timeUs, ipLength(frame), s.transport);
    });
    return { conversation: c, forward, reverse: reverse.packets > 0 ? reverse : undefined };
  });
  // Stable sort: packets of one conversation keep their order when times tie.
  packets.sort((a, b) => a.timeUs - b.timeUs);
  return { packets, conversations: flows };
}

export interface MixOptions {
  readonly count: number;
  readonly seed?: number;
  /** Capture start, µs since the epoch. */
  readonly startUs?: number;
  /** Conversations start spread evenly over this span. */
  readonly spanUs?: number;
}

/**
 * `count` conversations cycling through TCP, UDP and ICMP over IPv4 and IPv6, with sizes, packet counts,
 * ToS and timing drawn from a seeded PRNG. Endpoints are unique per conversation, so every flow key
 * (5-tuple) occurs once and records can be matched to conversations without ambiguity.
 */
export function conversationMix(opts: MixOptions): Conversation[] {
  const rand = seededRandom(opts.seed ?? 1);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const startUs = opts.startUs ?? Date.UTC(2024, 0, 15, 10, 0, 0) * 1000;
  const spanUs = opts.spanUs ?? 120_000_000;
  const protos = ['tcp', 'udp', 'icmp'] as const;
  return Array.from({ length: opts.count }, (_, i): Conversation => {
    const proto = protos[i % 3];
    const v6 = Math.floor(i / 3) % 2 === 1;
    const host = (side: number) => (v6 ? `2001:db8:${side}::${(i + 1).toString(16)}` : `10.${side}.${i >> 8}.${i & 0xff}`);
    // Alternate which side has the lower address, since meters order a flow's two ends by address.
    const [client, server] = i % 4 < 2 ? [host(1), host(2)] : [host(2), host(1)];
    return {
      proto,
      client,
      server,
      clientPort: proto === 'icmp' ? 0 : 20_000 + i,
      serverPort: proto === 'icmp' ? 0 : [80, 443, 8443, 9000, 5201][i % 5],
      startUs: startUs + Math.floor((i * spanUs) / opts.count) + int(0, 999) * 1000,
      gapUs: int(1, 200) * 1000 + int(0, 999),
      exchanges: int(1, 6),
      requestBytes: int(0, 1200),
      responseBytes: i % 7 === 6 ? 0 : int(1, 1400),
      close: i % 5 === 4 ? 'rst' : 'fin',
      tos: [0, 0x10, 0x28, 0xb8][int(0, 3)],
    };
  });
}
