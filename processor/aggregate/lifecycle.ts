// The lifecycle of an aggregated flow, as one explicit state (kafkajs's transaction state machine is the
// model; Antrea keeps four booleans, ReadyToSend, updatedSinceLastExport, areCorrelatedFieldsFilled and
// areExternalFieldsFilled, that can contradict each other). A flow is in exactly one state:
//
//   waiting       half of an inter-Node flow whose peer has not been seen: never exported as it is
//   pending       exportable, with data not exported yet (new, just correlated, or updated since)
//   exported      exportable, everything exported
//   lonePending   its peer never came within the retry budget: exported uncorrelated (flowagg's
//                 `uncorrelated: export`), with new data since; still correlates if the peer shows up
//   loneExported  the same, everything exported
//
// and moves only along this table; anything else is a bug and throws.
//
//   state \ event   record      peer       exported       gaveUp
//   waiting         waiting     pending    -              lonePending
//   pending         pending     -          exported       -
//   exported        pending     -          -              -
//   lonePending     lonePending pending    loneExported   -
//   loneExported    lonePending pending    -              -
import { FlowaggError } from '../../lib/errors.js';
import { PROCESSOR_FLOW_STATE } from '../errors.js';

export const STATES = ['waiting', 'pending', 'exported', 'lonePending', 'loneExported'] as const;
export type FlowState = (typeof STATES)[number];
export const EVENTS = ['record', 'peer', 'exported', 'gaveUp'] as const;
export type FlowEvent = (typeof EVENTS)[number];

export const WAITING = 0;
export const PENDING = 1;
export const EXPORTED = 2;
export const LONE_PENDING = 3;
export const LONE_EXPORTED = 4;

/** A record of the flow was aggregated (a stale one is not an event). */
export const ON_RECORD = 0;
/** A record from the other Node correlated the flow. */
export const ON_PEER = 1;
/** The flow's data went out. */
export const ON_EXPORTED = 2;
/** The retry budget ran out before the peer came. */
export const ON_GAVE_UP = 3;

const TABLE: Readonly<Record<FlowState, Partial<Record<FlowEvent, FlowState>>>> = {
  waiting: { record: 'waiting', peer: 'pending', gaveUp: 'lonePending' },
  pending: { record: 'pending', exported: 'exported' },
  exported: { record: 'pending' },
  lonePending: { record: 'lonePending', peer: 'pending', exported: 'loneExported' },
  loneExported: { record: 'lonePending', peer: 'pending' },
};

/** NEXT[state * EVENTS.length + event]: the next state, or -1 for a transition the table forbids. */
const NEXT = new Int8Array(STATES.length * EVENTS.length).fill(-1);
STATES.forEach((state, s) => {
  EVENTS.forEach((event, e) => {
    const next = TABLE[state][event];
    if (next !== undefined) NEXT[s * EVENTS.length + e] = STATES.indexOf(next);
  });
});

export function transition(state: number, event: number): number {
  const next = NEXT[state * EVENTS.length + event]!;
  if (next < 0) {
    throw new FlowaggError(PROCESSOR_FLOW_STATE, `a flow in state ${STATES[state] ?? state} cannot take event ${EVENTS[event] ?? event}`, {
      context: { state: STATES[state] ?? state, event: EVENTS[event] ?? event },
    });
  }
  return next;
}

/** Whether a flow in this state may be exported (waiting halves may not). */
export const isExportable = (state: number): boolean => state !== WAITING;
/** Whether it holds data not exported yet. */
export const hasNewData = (state: number): boolean => state === PENDING || state === LONE_PENDING;
/** Whether a record from the other Node still correlates it. */
export const awaitsPeer = (state: number): boolean => state === WAITING || state === LONE_PENDING || state === LONE_EXPORTED;
