// Who makes a request, as Antrea's API server (k8s.io/apiserver's delegating authenticator) decides it:
// the loopback token is the server itself; any other bearer token is whoever Kubernetes' TokenReview
// says (a token it does not know is refused, 401); no token at all is system:anonymous, whom the
// authorizer then judges. Kubernetes unreachable refuses the request (401) rather than guessing.
import type { Delegation } from './delegation.js';
import type { UserInfo } from './kubernetes-reviews.js';
import { isToken } from './loopback-token.js';
import { apiMetrics } from './metrics.js';

/** Kubernetes' loopback client: the system:masters group may do anything (delegating authorizer's AlwaysAllowGroups). */
const LOOPBACK_USER: UserInfo = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
const ANONYMOUS_USER: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

export type Authentication =
  | { readonly kind: 'user'; readonly user: UserInfo }
  | { readonly kind: 'rejected'; readonly status: 401 | 429; readonly message: string };

export interface AuthenticatorOptions {
  readonly loopbackToken: string;
  /** Absent: only the loopback token is known (no Kubernetes to ask). */
  readonly delegation?: Delegation;
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case, as Kubernetes reads it). */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

export async function authenticate(authorization: string | undefined, source: string, opts: AuthenticatorOptions): Promise<Authentication> {
  const token = bearerToken(authorization);
  if (token === undefined) return counted('anonymous', { kind: 'user', user: ANONYMOUS_USER });
  if (isToken(token, opts.loopbackToken)) return counted('loopback', { kind: 'user', user: LOOPBACK_USER });
  if (opts.delegation === undefined) return counted('invalid', unauthorized('the token is not the loopback token, and tokens are not checked with Kubernetes here (apiServer.delegateAuth)'));
  const outcome = await opts.delegation.token(token, source);
  if (outcome.kind === 'refused') return counted('refused', { kind: 'rejected', status: 429, message: outcome.message });
  if (outcome.kind === 'failed') return counted('failed', unauthorized(`the token could not be reviewed: ${outcome.message}`));
  const verdict = outcome.value;
  if (!verdict.authenticated) return counted('invalid', unauthorized(verdict.reason));
  const groups = verdict.user.groups.includes('system:authenticated') ? verdict.user.groups : [...verdict.user.groups, 'system:authenticated'];
  return counted('kubernetes', { kind: 'user', user: { ...verdict.user, groups } });
}

function unauthorized(message: string): Authentication {
  return { kind: 'rejected', status: 401, message: `Unauthorized: ${message}` };
}

function counted(result: string, authentication: Authentication): Authentication {
  apiMetrics.authentications.inc({ result });
  return authentication;
}
