// How many flows run at once and how many records a second that makes. Each reporting Node exports each
// of its flows once per export interval (Antrea's activeFlowExportTimeout), so M flows give
// M × reporters per flow / interval records a second: the target rate and the flow count follow from
// each other. A rate above what the flows can give would need a flow exported more often than its
// interval, which an Agent never does; a rate below makes the Agents fall behind, and what they cannot
// send in time is carried into their next records (carry.ts).

export const DEFAULT_FLOWS = 1000;

export interface RatePlan {
  readonly flows: number;
  /** Records a second the token bucket lets out. */
  readonly rate: number;
  /** Records a second the flows give. */
  readonly natural: number;
}

export type RatePlanResult = { readonly ok: true; readonly plan: RatePlan } | { readonly ok: false; readonly error: string };

export function ratePlan(input: { flows?: number | undefined; rate?: number | undefined; exportIntervalS: number; reportersPerFlow: number }): RatePlanResult {
  const { exportIntervalS: interval, reportersPerFlow: reporters } = input;
  const naturalOf = (flows: number) => (flows * reporters) / interval;
  const needed = (rate: number) => Math.ceil((rate * interval) / reporters);
  if (input.rate === undefined) {
    const flows = input.flows ?? DEFAULT_FLOWS;
    return { ok: true, plan: { flows, rate: naturalOf(flows), natural: naturalOf(flows) } };
  }
  if (input.flows === undefined) {
    const flows = needed(input.rate);
    return { ok: true, plan: { flows, rate: input.rate, natural: naturalOf(flows) } };
  }
  const natural = naturalOf(input.flows);
  if (input.rate > natural * 1.0001) {
    return {
      ok: false,
      error:
        `--rate ${input.rate} needs at least ${needed(input.rate)} concurrent flows: ${input.flows} flows give ${Math.round(natural)} records/s, ` +
        `each Node exporting each flow once per ${interval}s interval; raise --flows, shorten --export-interval, or leave --flows out`,
    };
  }
  return { ok: true, plan: { flows: input.flows, rate: input.rate, natural } };
}
