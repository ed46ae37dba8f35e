// The API server's guard: authentication, then authorization, as k8s.io/apiserver runs them for
// Antrea's API server, answering a refusal with a Kubernetes Status object, which antctl prints
// ("Error from server (Forbidden): ...").
import type { IncomingMessage } from 'node:http';
import type { Denial, RequestGuard } from '../telemetry/http.js';
import { authenticate, type AuthenticatorOptions } from './authenticate.js';
import { authorize } from './authorize.js';

const REASONS: Readonly<Record<number, string>> = { 401: 'Unauthorized', 403: 'Forbidden', 429: 'TooManyRequests', 500: 'InternalError' };

export function apiGuard(opts: AuthenticatorOptions): RequestGuard {
  return async (req: IncomingMessage, url: URL) => {
    const source = req.socket.remoteAddress ?? '';
    const who = await authenticate(req.headers.authorization, source, opts);
    if (who.kind === 'rejected') return kubeStatus(who.status, who.message);
    const decision = await authorize(who.user, { verb: (req.method ?? 'GET').toLowerCase(), path: url.pathname }, source, opts.delegation);
    return decision.kind === 'allowed' ? undefined : kubeStatus(decision.status, decision.message);
  };
}

function kubeStatus(code: number, message: string): Denial {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: REASONS[code] ?? 'Unknown', code } };
}
