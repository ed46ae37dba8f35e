// The templates an IPFIX exporting process announces, Antrea's (256 IPv4, 257 IPv6) and flowagg's flow
// templates (258, 259) for records no Antrea Agent made, and, for each, how a scanned FlowRecord becomes its values.
import type { Template } from '../../lib/ipfix/types.js';
import { FIELD, type ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { element } from '../../lib/ipfix/registry.js';
import { type ElementOptions, FLOW_IPV4_TEMPLATE_ID, FLOW_IPV6_TEMPLATE_ID, flowTemplateElements, IPV4_TEMPLATE_ID, IPV6_TEMPLATE_ID, templateElements } from './elements.js';
import { type RecordValues, recordValues } from './record-values.js';

export interface ExportTemplate {
  readonly template: Template;
  readonly values: RecordValues;
}

export interface ExportTemplates {
  readonly ipv4: ExportTemplate;
  readonly ipv6: ExportTemplate;
  readonly flowIpv4: ExportTemplate;
  readonly flowIpv6: ExportTemplate;
  /**
   * The template a record goes out with: Antrea's for an Antrea Agent's record (it has a flowType; so does
   * every aggregated one), else the flow template; IPv6 when it has IPv6 addresses and no IPv4 ones.
   */
  of(r: ScannedRecord): ExportTemplate;
}

const SOURCE_IPV4 = FIELD.sourceIPv4Address!;
const SOURCE_IPV6 = FIELD.sourceIPv6Address!;
const FLOW_TYPE = FIELD.flowType!;

function build(id: number, names: readonly string[], observationDomainId: number, clusterId: string): ExportTemplate {
  const fields = names.map((name) => {
    const ie = element(name);
    return { ie, length: ie.length, scope: false };
  });
  const template: Template = { id, observationDomainId, fields, scopeFieldCount: 0 };
  return { template, values: recordValues(template, clusterId) };
}

export function exportTemplates(o: Omit<ElementOptions, 'ipv6'>, observationDomainId: number, clusterId: string): ExportTemplates {
  const ipv4 = build(IPV4_TEMPLATE_ID, templateElements({ ...o, ipv6: false }), observationDomainId, clusterId);
  const ipv6 = build(IPV6_TEMPLATE_ID, templateElements({ ...o, ipv6: true }), observationDomainId, clusterId);
  const flowIpv4 = build(FLOW_IPV4_TEMPLATE_ID, flowTemplateElements(false), observationDomainId, clusterId);
  const flowIpv6 = build(FLOW_IPV6_TEMPLATE_ID, flowTemplateElements(true), observationDomainId, clusterId);
  return {
    ipv4, ipv6, flowIpv4, flowIpv6,
    of: (r) => {
      const v6 = r.start[SOURCE_IPV4]! < 0 && r.start[SOURCE_IPV6]! >= 0;
      if (Number.isNaN(r.num[FLOW_TYPE])) return v6 ? flowIpv6 : flowIpv4;
      return v6 ? ipv6 : ipv4;
    },
  };
}
