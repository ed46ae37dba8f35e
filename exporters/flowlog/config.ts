// The `flowLogger` section: Antrea's keys and defaults (reference §3), validated at start. Antrea maps an
// unknown rule action to a value that matches nothing; flowagg refuses it with the key path instead.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { emptyIsDefault } from '../../lib/config/empty.js';

export const RULE_ACTIONS = { None: 0, Allow: 1, Drop: 2, Reject: 3 } as const;
export type RuleActionName = keyof typeof RULE_ACTIONS;

const ruleActions = z
  .array(z.enum(Object.keys(RULE_ACTIONS) as [RuleActionName, ...RuleActionName[]], { error: (i) => `"${String(i.input)}" is not a rule action (None, Allow, Drop or Reject)` }))
  .default([]);

/** A record passes a filter when each non-empty list contains its action; it is logged when any filter passes. */
export const flowFilterSchema = z.strictObject({
  ingressNetworkPolicyRuleActions: ruleActions.describe('Rule actions of the ingress policy (None, Allow, Drop, Reject); empty: any.'),
  egressNetworkPolicyRuleActions: ruleActions.describe('Rule actions of the egress policy (None, Allow, Drop, Reject); empty: any.'),
});

export const flowLoggerSection = z
  .strictObject({
    enable: z.boolean().default(false).describe('Whether `flowagg run` starts the flow log exporter (`flowagg export flowlog` runs it regardless).'),
    path: emptyIsDefault(z.string().min(1).default(join(tmpdir(), 'antrea-flows.log')).describe('The log file; rotated files are kept beside it.')),
    maxSize: emptyIsDefault(z.number().int().min(1).max(1024 * 1024).default(100).describe('Megabytes (MiB) a file may reach before it is rotated.'), [0]),
    maxBackups: emptyIsDefault(z.number().int().min(1).default(3).describe('Rotated files kept (maxAge may remove them sooner).'), [0]),
    maxAge: z.number().int().min(0).default(0).describe('Days a rotated file is kept; 0 keeps them regardless of age.'),
    compress: z.boolean().default(true).describe('gzip rotated files.'),
    recordFormat: emptyIsDefault(
      z
        .string()
        .transform((v) => v.toUpperCase())
        .pipe(z.enum(['CSV', 'JSON'], { error: (i) => `"${String(i.input)}" is not a record format (CSV or JSON)` }))
        .default('CSV')
        .describe('CSV (Antrea\'s 30 columns) or JSON (one object per line, with the keys `flowagg pipeline` prints).'),
    ),
    filters: z.array(flowFilterSchema).default([]).describe('OR of filters; AND of the conditions inside one. Empty: every record is logged.'),
    prettyPrint: z.boolean().default(true).describe('CSV: protocol, rule actions and policy types as names rather than numbers.'),
  })
  .prefault({});

export type FlowLoggerConfig = z.output<typeof flowLoggerSection>;
export type FlowFilter = z.output<typeof flowFilterSchema>;
