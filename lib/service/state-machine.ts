// A lifecycle as data: a transition table and a guard that names the method and the current state when a
// call is not allowed (kafkajs's transactionStateMachine does the same). Used for transactions,
// transactional producers and consumers of the embedded log, and for every service (lifecycle.ts).
import { type ErrorCode, FlowaggError } from '../errors.js';

export type Transitions<S extends string> = Readonly<Record<S, readonly S[]>>;

export class StateMachine<S extends string> {
  constructor(
    private readonly subject: string,
    private readonly transitions: Transitions<S>,
    private current: S,
    private readonly errorCode: ErrorCode,
    private readonly context: Readonly<Record<string, string | number>> = {},
  ) {}

  get state(): S {
    return this.current;
  }

  is(...states: readonly S[]): boolean {
    return states.includes(this.current);
  }

  /** Throws unless the current state is one of `legal`. */
  guard(method: string, legal: readonly S[]): void {
    if (!legal.includes(this.current)) {
      throw new FlowaggError(this.errorCode, `${this.subject}.${method}() is not allowed in state '${this.current}' (allowed in: ${legal.join(', ')})`, {
        context: { ...this.context, method, state: this.current },
      });
    }
  }

  to(next: S): void {
    if (!this.transitions[this.current].includes(next)) {
      throw new FlowaggError(this.errorCode, `${this.subject} cannot go from '${this.current}' to '${next}'`, {
        context: { ...this.context, state: this.current, next },
      });
    }
    this.current = next;
  }
}
