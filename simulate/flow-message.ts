// An Agent's record as the gRPC Agent sends it (antrea-grpc.md §4.3, §4.5): one Flow per ExportRequest,
// ipfix.export_time the time of sending, the observation domain the Node's FNV-1, no exporter_ip (the
// collector fills it) and no sequence number. The Flow's fields are the record's, through the collector's
// own mapping table read backwards (schemas/antrea-flow-mapping.ts), so that the collector gives the
// FlowRecord the IPFIX path gives for the same record; "no address" is empty bytes, as Agents send it.
import { type Conversion, FLOW_MAPPING } from '../schemas/antrea-flow-mapping.js';
import { LEAVES } from '../schemas/antrea-flow-fields.js';
import { antreaType } from '../schemas/antrea-proto.js';
import { agentFieldNames, type AgentRecord } from './antrea/workload.js';
import { parseIpv4Into, parseIpv6Into } from '../lib/ipfix/text.js';

const ExportRequest = antreaType('ExportRequest');

/** The agent template's time elements are the FlowRecord's millisecond fields in the mapping. */
const MAPPED_AS: Readonly<Record<string, string>> = { flowStartSeconds: 'flowStartMilliseconds', flowEndSeconds: 'flowEndMilliseconds' };

interface Setter {
  /** Field names from the Flow down to the leaf. */
  readonly path: readonly string[];
  /** Position of the value in the record's values. */
  readonly index: number;
  readonly kind: Conversion['kind'];
}

function settersOf(family: 4 | 6): readonly Setter[] {
  const names = agentFieldNames(family).map((n) => MAPPED_AS[n] ?? n);
  return FLOW_MAPPING.flatMap(({ field, leaf, conversion }) => {
    const index = names.indexOf(field);
    // The other family's addresses, and the UIDs an Agent's IPFIX template does not carry.
    return index < 0 ? [] : [{ path: LEAVES[leaf].split('.'), index, kind: conversion.kind }];
  });
}

const SETTERS = { 4: settersOf(4), 6: settersOf(6) } as const;

/** The raw bytes of an address, or undefined for the zero address ("none"). */
function addressBytes(text: string): Buffer | undefined {
  const v6 = text.includes(':');
  const b = Buffer.alloc(v6 ? 16 : 4);
  if (!(v6 ? parseIpv6Into(text, b, 0) : parseIpv4Into(text, b, 0))) throw new RangeError(`not an address: ${text}`);
  return b.every((x) => x === 0) ? undefined : b;
}

function put(flow: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let o = flow;
  for (let i = 0; i < path.length - 1; i++) o = (o[path[i]!] ??= {}) as Record<string, unknown>;
  o[path[path.length - 1]!] = value;
}

/** The Flow of an agent record, as protobufjs's plain object (field names as in the .proto). */
export function agentFlow(r: AgentRecord, exportTimeMs: number): Record<string, unknown> {
  const seconds = Math.floor(exportTimeMs / 1000);
  const flow: Record<string, unknown> = {
    ipfix: { export_time: { seconds, nanos: (exportTimeMs - seconds * 1000) * 1_000_000 }, observation_domain_id: r.node.observationDomainId },
    ip: { version: r.family },
  };
  for (const { path, index, kind } of SETTERS[r.family]) {
    const v = r.values[index]!;
    switch (kind) {
      case 'address':
      case 'addressText': {
        const b = v === '' ? undefined : addressBytes(v as string);
        if (b !== undefined) put(flow, path, b);
        break;
      }
      case 'string':
        // transport.TCP is a oneof, set only with a state.
        if (v !== '' || path[path.length - 1] !== 'state_name') put(flow, path, v);
        break;
      default:
        put(flow, path, v);
    }
  }
  return flow;
}

/** The ExportRequest bytes carrying the record. */
export function exportRequest(r: AgentRecord, exportTimeMs: number): Uint8Array {
  return ExportRequest.encode({ flows: [agentFlow(r, exportTimeMs)] }).finish();
}
