// Issue 15's ways for the Agents' streams to drift apart, as scenario options (scenario.ts), in agent
// time from the workload's first exports (`at`): the judged flows' records span its first 30 s.
import { at, type ScenarioOptions, SPEED } from './scenario.js';

/** 1: every Agent as fast as flowagg reads its connection. */
export const UNPACED: ScenarioOptions = { speed: 'unpaced' };

/** 2: Node 2's stream 30 s behind the others' until 60 s in, when it sends what it held back. */
export const HELD_BACK: ScenarioOptions = { speed: SPEED, scripts: (w) => new Map([[2, { heldBack: { lagS: 30, until: at(w, 60) } }]]) };

/** 3: clocks 3 s apart: Nodes 0 and 3 behind, 2 and 5 ahead (on top of the workload's own second either way). */
export const CLOCK_SKEW: ScenarioOptions = { speed: SPEED, clockOffset: (node) => 3 * ((node.index % 3) - 1) };

/** 4: Node 3's connection closed from 12 s to 72 s in, then a new one carrying its backlog. */
export const RECONNECT: ScenarioOptions = { speed: SPEED, scripts: (w) => new Map([[3, { outage: { from: at(w, 12), until: at(w, 72) } }]]) };

/**
 * 5: Node 4's Agent starts 20 s in, its peers' halves of the flows it reports waiting since their first
 * records (its first record of each flow carries what it counted before, as a new Agent's conntrack totals
 * do); Node 1's stops for good 6 s in, before its first record of many flows.
 */
export const JOIN_AND_LEAVE: ScenarioOptions = { speed: SPEED, scripts: (w) => new Map([[4, { joinsAt: at(w, 20) }], [1, { stopsAt: at(w, 6) }]]) };
