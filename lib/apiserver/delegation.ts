// The questions the API server puts to Kubernetes, each answered from the cache when it can (kept 10 s,
// as Antrea's delegating authenticator and authorizer keep them), otherwise asked within the review
// budget. Tokens are kept by their SHA-256, never as they are.
import { createHash } from 'node:crypto';
import { errorMessage } from '../errors.js';
import { DecisionCache } from './decision-cache.js';
import type { AccessAttributes, AccessVerdict, Reviewer, TokenVerdict, UserInfo } from './kubernetes-reviews.js';
import { apiMetrics } from './metrics.js';
import { REVIEW_LIMITS, ReviewGate, type ReviewLimits } from './review-gate.js';

export type Outcome<T> =
  | { readonly kind: 'answer'; readonly value: T }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string };

export interface DelegationOptions {
  /** Antrea: 10 s, for answers allowed and denied alike. */
  readonly ttlMs?: number;
  /** Answers kept, per kind. */
  readonly maxEntries?: number;
  readonly limits?: ReviewLimits;
  readonly now?: () => number;
}

export class Delegation {
  readonly #reviewer: Reviewer;
  readonly #gate: ReviewGate;
  readonly #tokens: DecisionCache<TokenVerdict>;
  readonly #access: DecisionCache<AccessVerdict>;

  constructor(reviewer: Reviewer, opts: DelegationOptions = {}) {
    const cache = { ttlMs: opts.ttlMs ?? 10_000, maxEntries: opts.maxEntries ?? 4096, ...(opts.now && { now: opts.now }) };
    this.#reviewer = reviewer;
    this.#gate = new ReviewGate(opts.limits ?? REVIEW_LIMITS, opts.now);
    this.#tokens = new DecisionCache(cache);
    this.#access = new DecisionCache(cache);
  }

  token(token: string, source: string): Promise<Outcome<TokenVerdict>> {
    const key = createHash('sha256').update(token).digest('base64');
    return this.#ask('token', this.#tokens, key, source, () => this.#reviewer.reviewToken(token), (v) => v.authenticated);
  }

  access(user: UserInfo, attributes: AccessAttributes, source: string): Promise<Outcome<AccessVerdict>> {
    const key = JSON.stringify([user.username, user.uid, user.groups, user.extra, attributes.verb, attributes.path]);
    return this.#ask('access', this.#access, key, source, () => this.#reviewer.reviewAccess(user, attributes), (v) => v.allowed);
  }

  async #ask<T>(kind: 'token' | 'access', cache: DecisionCache<T>, key: string, source: string, review: () => Promise<T>, allowed: (v: T) => boolean): Promise<Outcome<T>> {
    const kept = cache.lookup(key);
    let answer: Promise<T>;
    if (kept.kind === 'cached') {
      apiMetrics.cacheHits.inc({ kind });
      answer = kept.answer;
    } else {
      const sent = this.#gate.send(source, review);
      if (sent.kind === 'refused') return { kind: 'refused', message: sent.message };
      answer = cache.remember(key, sent.answer);
      answer.then(
        (v) => apiMetrics.reviews.inc({ kind, result: allowed(v) ? 'allowed' : 'denied' }),
        () => apiMetrics.reviews.inc({ kind, result: 'failed' }),
      );
    }
    try {
      return { kind: 'answer', value: await answer };
    } catch (err) {
      return { kind: 'failed', message: errorMessage(err) };
    }
  }
}
