import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toFlowRow } from '../row/flow-row.js';
import { flowRecord } from '../testing/records.js';
import { flowLoggerSection } from './config.js';
import { compileFilters } from './filters.js';

const row = (ingress: number, egress: number) => toFlowRow(flowRecord({ ingressNetworkPolicyRuleAction: ingress, egressNetworkPolicyRuleAction: egress }), '');

describe('flow log filters', () => {
  it('without filters, every record passes', () => {
    assert.equal(compileFilters([])(row(2, 0)), true);
  });

  it('ANDs the conditions of one filter and ORs the filters', () => {
    const { filters } = flowLoggerSection.parse({
      filters: [
        { ingressNetworkPolicyRuleActions: ['Drop', 'Reject'], egressNetworkPolicyRuleActions: ['None'] },
        { egressNetworkPolicyRuleActions: ['Reject'] },
      ],
    });
    const passes = compileFilters(filters);
    assert.equal(passes(row(2, 0)), true); // first filter
    assert.equal(passes(row(3, 0)), true);
    assert.equal(passes(row(2, 1)), false); // first fails on egress, second on egress
    assert.equal(passes(row(1, 3)), true); // second filter
    assert.equal(passes(row(0, 0)), false);
  });

  it('refuses an unknown action with its key path', () => {
    const r = flowLoggerSection.safeParse({ filters: [{ ingressNetworkPolicyRuleActions: ['Deny'] }] });
    assert.equal(r.success, false);
    assert.deepEqual(r.error!.issues[0]!.path, ['filters', 0, 'ingressNetworkPolicyRuleActions', 0]);
    assert.match(r.error!.issues[0]!.message, /"Deny" is not a rule action/);
  });
});
