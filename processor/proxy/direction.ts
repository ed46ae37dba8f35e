// flowDirection (IANA 61) in proxy mode, from the record as received (reference §2.2): which Node's view
// of the flow this record is, in the standard element, so that a collector correlating the two halves
// itself can tell them apart.
import { FLOW_TYPE_FROM_EXTERNAL, FLOW_TYPE_INTER_NODE, FLOW_TYPE_TO_EXTERNAL } from '../record-input.js';

export const DIRECTION_INGRESS = 0x00;
export const DIRECTION_EGRESS = 0x01;
/** Not a valid IANA value; Antrea's reserved "not applicable", e.g. for intra-Node flows. */
export const DIRECTION_UNKNOWN = 0xff;

/**
 * Antrea's rules; `flowType` NaN when absent. A record with no flowType (not from an Antrea agent) that
 * carries its own flowDirection keeps it (`received`, NaN when absent): Antrea would overwrite it with
 * 0xFF, losing what the exporter knew.
 */
export function flowDirection(flowType: number, sourcePod: boolean, destinationPod: boolean, received: number): number {
  if (flowType === FLOW_TYPE_INTER_NODE) {
    if (sourcePod && !destinationPod) return DIRECTION_EGRESS;
    if (!sourcePod && destinationPod) return DIRECTION_INGRESS;
    return DIRECTION_UNKNOWN;
  }
  if (flowType === FLOW_TYPE_TO_EXTERNAL && sourcePod) return DIRECTION_EGRESS;
  if (flowType === FLOW_TYPE_FROM_EXTERNAL && destinationPod) return DIRECTION_INGRESS;
  if (flowType !== flowType && received === received) return received;
  return DIRECTION_UNKNOWN;
}
