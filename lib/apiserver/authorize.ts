// What a user may do, as Antrea's delegating authorizer decides it: the system:masters group (the
// loopback token) may do anything; everyone else, anonymous included, may make a request only when
// Kubernetes' SubjectAccessReview allows its verb (the lowercase HTTP method) on its path. Without
// Kubernetes to ask, only system:masters gets in.
import type { Delegation } from './delegation.js';
import type { AccessAttributes, UserInfo } from './kubernetes-reviews.js';

export type Authorization = { readonly kind: 'allowed' } | { readonly kind: 'denied'; readonly status: 403 | 429 | 500; readonly message: string };

const PRIVILEGED_GROUP = 'system:masters';

export async function authorize(user: UserInfo, attributes: AccessAttributes, source: string, delegation: Delegation | undefined): Promise<Authorization> {
  if (user.groups.includes(PRIVILEGED_GROUP)) return { kind: 'allowed' };
  const cannot = `forbidden: User "${user.username}" cannot ${attributes.verb} path "${attributes.path}"`;
  if (delegation === undefined) return { kind: 'denied', status: 403, message: `${cannot}: no Kubernetes API to ask (apiServer.delegateAuth); use the loopback token` };
  const outcome = await delegation.access(user, attributes, source);
  if (outcome.kind === 'refused') return { kind: 'denied', status: 429, message: outcome.message };
  if (outcome.kind === 'failed') return { kind: 'denied', status: 500, message: `the SubjectAccessReview failed: ${outcome.message}` };
  if (outcome.value.allowed) return { kind: 'allowed' };
  return { kind: 'denied', status: 403, message: outcome.value.reason === '' ? cannot : `${cannot}: ${outcome.value.reason}` };
}
