// A simulation's shape, worked out before anything connects: the cluster (Nodes, Pods, flow mix, seed),
// how many flows run at once and at what rate (rate-plan.ts). The workload itself decides how many Nodes
// report a flow on average, so a sample of its first flows is asked.
import { antreaWorkload, type WorkloadOptions } from './antrea/workload.js';
import { ratePlan, type RatePlan } from './rate-plan.js';

export interface ShapeOptions {
  readonly nodes: number;
  /** The number of the first Node (workload.ts). */
  readonly firstNode: number;
  readonly flows?: number | undefined;
  readonly rate?: number | undefined;
  readonly recordsPerFlow: number;
  readonly exportIntervalS: number;
  readonly ipv6Share: number;
  readonly seed: number;
}

export interface Shape extends RatePlan {
  /** The workload's options but its start time, which is the simulation's. */
  readonly workload: Required<Pick<WorkloadOptions, 'nodes' | 'firstNode' | 'flows' | 'recordsPerHalf' | 'exportIntervalS' | 'ipv6Share' | 'seed'>>;
  /** The rate the token bucket lets out: the target, or 5% above what the flows give, to catch up after a stall. */
  readonly bucketRate: number;
}

const SAMPLE_FLOWS = 4096;

export function shapeOf(o: ShapeOptions): { ok: true; shape: Shape } | { ok: false; error: string } {
  const base = { nodes: o.nodes, firstNode: o.firstNode, recordsPerHalf: o.recordsPerFlow, exportIntervalS: o.exportIntervalS, ipv6Share: o.ipv6Share, seed: o.seed };
  const sample = antreaWorkload({ ...base, flows: Math.min(o.flows ?? SAMPLE_FLOWS, SAMPLE_FLOWS) });
  const reportersPerFlow = sample.recordCount / (sample.flowCount * o.recordsPerFlow);
  const planned = ratePlan({ flows: o.flows, rate: o.rate, exportIntervalS: o.exportIntervalS, reportersPerFlow });
  if (!planned.ok) return planned;
  const { plan } = planned;
  const capped = plan.rate < plan.natural * 0.999;
  return { ok: true, shape: { ...plan, workload: { ...base, flows: plan.flows }, bucketRate: capped ? plan.rate : plan.natural * 1.05 } };
}
