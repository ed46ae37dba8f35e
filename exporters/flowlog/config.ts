// The `flowLogger` section: Antrea's keys and defaults (reference §3), validated at start. Antrea maps an
// unknown rule action to a value that matches nothing; flowagg refuses it with the key path instead.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const RULE_ACTIONS = { None: 0, Allow: 1, Drop: 2, Reject: 3 } as const;
export type RuleActionName = keyof typeof RULE_ACTIONS;

const ruleActions = z
  .array(z.enum(Object.keys(RULE_ACTIONS) as [RuleActionName, ...RuleActionName[]], { error: (i) => `"${String(i.input)}" is not a rule action (None, Allow, Drop or Reject)` }))
  .default([]);

/** A record passes a filter when each non-empty list contains its action; it is logged when any filter passes. */
export const flowFilterSchema = z.strictObject({
  ingressNetworkPolicyRuleActions: ruleActions,
  egressNetworkPolicyRuleActions: ruleActions,
});

export const flowLoggerSection = z
  .strictObject({
    /** Whether `flowagg run` starts the flow log exporter (`flowagg export flowlog` runs it regardless). */
    enable: z.boolean().default(false),
    /** The log file; rotated files are kept beside it. */
    path: z.string().min(1).default(join(tmpdir(), 'antrea-flows.log')),
    /** Megabytes (MiB) a file may reach before it is rotated. */
    maxSize: z.number().int().min(1).max(1024 * 1024).default(100),
    /** Rotated files kept; 0 keeps them all (maxAge may still remove them). */
    maxBackups: z.number().int().min(0).default(3),
    /** Days a rotated file is kept; 0 keeps them regardless of age. */
    maxAge: z.number().int().min(0).default(0),
    /** gzip rotated files. */
    compress: z.boolean().default(true),
    /** CSV (Antrea's 30 columns) or JSON (one object per line, with the keys `flowagg pipeline` prints). */
    recordFormat: z
      .string()
      .transform((v) => v.toUpperCase())
      .pipe(z.enum(['CSV', 'JSON'], { error: (i) => `"${String(i.input)}" is not a record format (CSV or JSON)` }))
      .default('CSV'),
    /** OR of filters; AND of the conditions inside one. Empty: every record is logged. */
    filters: z.array(flowFilterSchema).default([]),
    /** CSV: protocol, rule actions and policy types as names rather than numbers. */
    prettyPrint: z.boolean().default(true),
  })
  .prefault({});

export type FlowLoggerConfig = z.output<typeof flowLoggerSection>;
export type FlowFilter = z.output<typeof flowFilterSchema>;
