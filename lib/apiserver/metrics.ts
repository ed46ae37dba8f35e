// Prometheus metrics of the API server (flowagg_api_*). Labels come from fixed sets.
import { componentMetrics } from '../telemetry/metrics.js';

const m = componentMetrics('api');

export const apiMetrics = {
  requests: m.counter('requests_total', 'Requests answered, by status code', ['code']),
  authentications: m.counter('authentications_total', 'Requests by how they were authenticated: loopback, kubernetes (a token Kubernetes reviewed), anonymous (no token), invalid, failed (Kubernetes unreachable), refused (the review budget was spent)', ['result']),
  reviews: m.counter('reviews_total', 'TokenReviews (token) and SubjectAccessReviews (access) sent to Kubernetes, by answer: allowed, denied, failed', ['kind', 'result']),
  cacheHits: m.counter('review_cache_hits_total', 'Requests answered from a review kept (10 s) or under way, without asking Kubernetes again', ['kind']),
  reviewsRefused: m.counter('reviews_refused_total', 'Reviews not sent because the budget was spent: rate (per client address or in all, per second), in_flight (waiting for Kubernetes)', ['reason']),
};
