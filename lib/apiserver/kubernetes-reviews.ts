// The two questions Antrea's API server delegates to Kubernetes, asked with @kubernetes/client-node as
// k8s.io/apiserver's delegating authenticator and authorizer ask them: TokenReview (who presents this
// bearer token?) and SubjectAccessReview (may this user make this non-resource request: the lowercase
// HTTP method as verb, and the path?). The API server's ServiceAccount needs the ClusterRole
// system:auth-delegator, as Antrea's flow-aggregator has.
import { AuthenticationV1Api, AuthorizationV1Api, type ConfigurationOptions, type KubeConfig, Observable } from '@kubernetes/client-node';

export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, string[]>>;
}

export type TokenVerdict = { readonly authenticated: true; readonly user: UserInfo } | { readonly authenticated: false; readonly reason: string };

export interface AccessAttributes {
  /** The lowercase HTTP method, as Kubernetes names the verb of a non-resource request. */
  readonly verb: string;
  readonly path: string;
}

export interface AccessVerdict {
  readonly allowed: boolean;
  readonly reason: string;
}

export interface Reviewer {
  reviewToken(token: string): Promise<TokenVerdict>;
  reviewAccess(user: UserInfo, attributes: AccessAttributes): Promise<AccessVerdict>;
}

/** `timeoutMs` bounds each review (Antrea's client gives up after 10 s): the request is aborted, the review fails. */
export function kubernetesReviewer(kubeConfig: KubeConfig, timeoutMs = 10_000): Reviewer {
  const authentication = kubeConfig.makeApiClient(AuthenticationV1Api);
  const authorization = kubeConfig.makeApiClient(AuthorizationV1Api);
  return {
    async reviewToken(token) {
      const review = await authentication.createTokenReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } }, abortAfter(timeoutMs));
      const status = review.status;
      if (status?.authenticated !== true || status.user?.username === undefined) return { authenticated: false, reason: status?.error || 'the token is not valid' };
      const { username, uid, groups, extra } = status.user;
      return { authenticated: true, user: { username, groups: groups ?? [], ...(uid !== undefined && uid !== '' && { uid }), ...(extra !== undefined && { extra }) } };
    },
    async reviewAccess(user, { verb, path }) {
      const review = await authorization.createSubjectAccessReview(
        {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { user: user.username, groups: [...user.groups], ...(user.uid !== undefined && { uid: user.uid }), ...(user.extra !== undefined && { extra: user.extra }), nonResourceAttributes: { verb, path } },
          },
        },
        abortAfter(timeoutMs),
      );
      const status = review.status;
      return { allowed: status?.allowed === true && status.denied !== true, reason: status?.reason || status?.evaluationError || '' };
    },
  };
}

/** Request options that abort the request after `ms` (client-node takes the signal from a middleware). */
function abortAfter(ms: number): ConfigurationOptions {
  return {
    middleware: [{ pre: (request) => (request.setSignal(AbortSignal.timeout(ms)), new Observable(Promise.resolve(request))), post: (response) => new Observable(Promise.resolve(response)) }],
    middlewareMergeStrategy: 'append',
  };
}
