// The flow log's policy rule action filters, as Antrea's log exporter applies them: a record is logged
// when no filter is configured or when at least one filter passes; a filter passes when each of its
// non-empty action lists contains the record's action (OR across filters, AND inside one).
import type { FlowRow } from '../row/flow-row.js';
import { type FlowFilter, RULE_ACTIONS } from './config.js';

/** What a filter looks at: the two rule actions of a row (or of a record, for JSON lines). */
export type RuleActions = Pick<FlowRow, 'ingressNetworkPolicyRuleAction' | 'egressNetworkPolicyRuleAction'>;
export type RowPredicate = (row: RuleActions) => boolean;

function actionSet(names: readonly (keyof typeof RULE_ACTIONS)[]): ReadonlySet<number> | undefined {
  return names.length === 0 ? undefined : new Set(names.map((n) => RULE_ACTIONS[n]));
}

export function compileFilters(filters: readonly FlowFilter[]): RowPredicate {
  if (filters.length === 0) return () => true;
  const compiled = filters.map((f) => ({ ingress: actionSet(f.ingressNetworkPolicyRuleActions), egress: actionSet(f.egressNetworkPolicyRuleActions) }));
  return (row) =>
    compiled.some(
      (f) => (f.ingress === undefined || f.ingress.has(row.ingressNetworkPolicyRuleAction)) && (f.egress === undefined || f.egress.has(row.egressNetworkPolicyRuleAction)),
    );
}
