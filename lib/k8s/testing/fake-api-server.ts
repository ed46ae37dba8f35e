// A fake Kubernetes API server for tests (node:http, plain HTTP): list, get, create, update (PUT with
// resourceVersion preconditions), delete and watch, for any resource kind registered with it, namespaced
// or cluster-scoped. One resourceVersion counter orders every change, as etcd's revision does, and a
// bounded event history lets watches resume from a resourceVersion (or get 410 Gone once it was
// forgotten), so a real @kubernetes/client-node informer runs against it unchanged.
// PATCH is not implemented (405); production code here uses PUT with resourceVersion.
// It also answers TokenReview and SubjectAccessReview (non-resource requests), as the API server
// answers a delegating authenticator and authorizer: tokens are known by addToken, and what each user
// may do by allow.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface ResourceKind {
  /** '' for the core group (/api/v1). */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export const DEFAULT_RESOURCES: readonly ResourceKind[] = [
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
  { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
  { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true },
  { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
];

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    generateName?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** One request as the fake saw it; `plural`, `namespace` and `name` are set when the path named them. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Readonly<Record<string, string>>;
  watch: boolean;
  plural?: string;
  namespace?: string;
  name?: string;
  /** The response's status code, once sent. */
  status?: number;
}

export interface FailureResponse {
  code: number;
  reason: string;
  message?: string;
}

class Failure implements FailureResponse {
  constructor(
    readonly code: number,
    readonly reason: string,
    readonly message: string,
  ) {}
}

/** Runs before every authenticated request; may delay it (return a promise) or fail it (return a failure). */
export type Interceptor = (req: RecordedRequest) => FailureResponse | undefined | Promise<FailureResponse | undefined>;

/** Who a token authenticates as, in a TokenReview's answer. */
export interface FakeUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
}

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

export interface FakeApiServerOptions {
  token?: string;
  resources?: readonly ResourceKind[];
  /** Events kept for watches that resume from a resourceVersion; older ones get 410 Gone. */
  historyLimit?: number;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';
interface WatchEvent { type: EventType; resource: ResourceKind; object: KubeObject; rv: number }
interface Watcher { resource: ResourceKind; namespace: string | undefined; matches: (o: KubeObject) => boolean; res: ServerResponse }
interface Target { resource: ResourceKind; namespace: string | undefined; name: string | undefined }

export class FakeKubeApiServer {
  readonly token: string;
  readonly requests: RecordedRequest[] = [];
  private readonly resources: readonly ResourceKind[];
  private readonly historyLimit: number;
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: WatchEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly interceptors: Interceptor[] = [];
  private readonly users = new Map<string, FakeUser>();
  /** Per username, the "verb path" rules SubjectAccessReview allows. */
  private readonly rules = new Map<string, Set<string>>();
  private revision = 0;
  /** Watches from a resourceVersion below this get 410 Gone: the events after it are no longer all kept. */
  private oldestResumable = 0;
  private server: Server | undefined;
  private port = 0;

  private constructor(opts: FakeApiServerOptions) {
    this.token = opts.token ?? 'fake-token';
    this.resources = opts.resources ?? DEFAULT_RESOURCES;
    this.historyLimit = opts.historyLimit ?? 1000;
  }

  static async start(opts: FakeApiServerOptions = {}): Promise<FakeKubeApiServer> {
    const fake = new FakeKubeApiServer(opts);
    const server = createServer((req, res) => {
      fake.handle(req, res).catch((err: unknown) => sendStatus(res, { code: 500, reason: 'InternalError', message: String(err) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.server = server;
    fake.port = (server.address() as AddressInfo).port;
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stores objects as if created through the API (watchers see ADDED); returns the stored copies. */
  seed<T extends object>(plural: string, ...objs: T[]): T[] {
    const resource = this.resource(plural);
    return objs.map((input) => {
      const o = structuredClone(input) as KubeObject;
      const target = { resource, namespace: resource.namespaced ? o.metadata?.namespace ?? 'default' : undefined, name: undefined };
      const result = this.create(target, o);
      if (result instanceof Failure) throw new Error(`seed ${plural}: ${result.reason} ${result.message}`);
      return structuredClone(result) as T;
    });
  }

  /** A copy of the stored object, or undefined. */
  get(plural: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const o = this.objects.get(objectKey(this.resource(plural), namespace, name));
    return o === undefined ? undefined : structuredClone(o);
  }

  /** Copies of the stored objects of one kind, in creation order, optionally in one namespace. */
  list(plural: string, namespace?: string): KubeObject[] {
    return this.select(this.resource(plural), namespace).map((o) => structuredClone(o));
  }

  /** Removes an object as if deleted through the API (watchers see DELETED). */
  remove(plural: string, namespace: string | undefined, name: string): boolean {
    const result = this.delete({ resource: this.resource(plural), namespace, name });
    return !(result instanceof Failure);
  }

  count(filter: Partial<RecordedRequest> = {}): number {
    const keys = Object.keys(filter) as (keyof RecordedRequest)[];
    return this.requests.filter((r) => keys.every((k) => r[k] === filter[k])).length;
  }

  intercept(fn: Interceptor): void {
    this.interceptors.push(fn);
  }

  /** TokenReview answers `token` as `user`; any other token is not authenticated. */
  addToken(token: string, user: FakeUser): void {
    this.users.set(token, user);
  }

  /**
   * SubjectAccessReview allows `username` these non-resource requests: "verb path" ("get /flowrecords"),
   * with * for any verb or any path. Everything else it denies.
   */
  allow(username: string, ...rules: string[]): void {
    const set = this.rules.get(username) ?? new Set<string>();
    for (const rule of rules) set.add(rule);
    this.rules.set(username, set);
  }

  get resourceVersion(): number {
    return this.revision;
  }

  /**
   * Watches registered and receiving events, of one kind or all. A recorded watch request is not yet
   * one of them (its headers may still be on the way), so tests that end watches wait for this.
   */
  openWatches(plural?: string): number {
    return [...this.watchers].filter((w) => plural === undefined || w.resource.plural === plural).length;
  }

  /** Ends every open watch, as an API server does when a watch times out; clients resume from their resourceVersion. */
  closeWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  /**
   * Forgets the event history, as etcd's compaction does: a watch resuming from an older resourceVersion
   * gets 410 Gone and must relist. A watch from the current one misses nothing and is served, so the
   * client's relist ends the 410s (refusing it too would make every informer relist forever).
   */
  compact(): void {
    this.history.length = 0;
    this.oldestResumable = this.revision;
  }

  async stop(): Promise<void> {
    this.closeWatches();
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private resource(plural: string): ResourceKind {
    const r = this.resources.find((x) => x.plural === plural);
    if (r === undefined) throw new Error(`fake API server: unknown resource ${plural}`);
    return r;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const target = this.route(url.pathname);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      watch: query.watch === 'true' || query.watch === '1',
      ...(target && { plural: target.resource.plural, namespace: target.namespace, name: target.name }),
    };
    this.requests.push(recorded);
    res.on('finish', () => (recorded.status = res.statusCode));
    const body = await readBody(req);

    if (req.headers.authorization !== `Bearer ${this.token}`) return sendStatus(res, { code: 401, reason: 'Unauthorized' });
    for (const fn of this.interceptors) {
      const failure = await fn(recorded);
      if (failure !== undefined) return sendStatus(res, failure);
    }
    if (recorded.method === 'POST' && (url.pathname === TOKEN_REVIEWS || url.pathname === ACCESS_REVIEWS)) {
      let review: KubeObject;
      try {
        review = JSON.parse(body) as KubeObject;
      } catch {
        return sendStatus(res, { code: 400, reason: 'BadRequest', message: 'body is not JSON' });
      }
      return send(res, 201, url.pathname === TOKEN_REVIEWS ? this.reviewToken(review) : this.reviewAccess(review));
    }
    if (target === undefined) return sendStatus(res, { code: 404, reason: 'NotFound', message: `no resource at ${url.pathname}` });

    const { resource, namespace, name } = target;
    const collection = name === undefined;
    if (collection && recorded.method === 'GET') {
      const matches = selectorFilter(query.labelSelector, query.fieldSelector);
      if (recorded.watch) return this.watch(resource, namespace, matches, query.resourceVersion ?? '', res);
      const items = this.select(resource, namespace).filter(matches);
      return send(res, 200, { apiVersion: apiVersion(resource), kind: `${resource.kind}List`, metadata: { resourceVersion: String(this.revision) }, items });
    }
    if (resource.namespaced && namespace === undefined && !(collection && recorded.method === 'GET')) {
      return sendStatus(res, { code: 404, reason: 'NotFound', message: `${resource.plural} are namespaced` });
    }

    let parsed: KubeObject | undefined;
    if (recorded.method === 'POST' || recorded.method === 'PUT') {
      try {
        parsed = JSON.parse(body) as KubeObject;
      } catch {
        return sendStatus(res, { code: 400, reason: 'BadRequest', message: 'body is not JSON' });
      }
    }
    let result: KubeObject | Failure;
    if (recorded.method === 'POST' && collection) result = this.create(target, parsed!);
    else if (recorded.method === 'GET' && !collection) result = this.getOne(target);
    else if (recorded.method === 'PUT' && !collection) result = this.update(target, parsed!);
    else if (recorded.method === 'DELETE' && !collection) result = this.delete(target);
    else result = new Failure(405, 'MethodNotAllowed', `${recorded.method} ${url.pathname} is not supported by the fake`);

    if (result instanceof Failure) return sendStatus(res, result);
    return send(res, recorded.method === 'POST' ? 201 : 200, result);
  }

  /** /api/v1[/namespaces/<ns>]/<plural>[/<name>] and /apis/<group>/<version>/... */
  private route(pathname: string): Target | undefined {
    const seg = pathname.split('/').filter((s) => s !== '').map(decodeURIComponent);
    let group: string;
    let version: string;
    let rest: string[];
    if (seg[0] === 'api') [group, version, rest] = ['', seg[1] ?? '', seg.slice(2)];
    else if (seg[0] === 'apis') [group, version, rest] = [seg[1] ?? '', seg[2] ?? '', seg.slice(3)];
    else return undefined;
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) [namespace, rest] = [rest[1], rest.slice(2)];
    if (rest.length < 1 || rest.length > 2) return undefined;
    const resource = this.resources.find((r) => r.group === group && r.version === version && r.plural === rest[0]);
    if (resource === undefined || (!resource.namespaced && namespace !== undefined)) return undefined;
    return { resource, namespace, name: rest[1] };
  }

  private reviewToken(review: KubeObject): KubeObject {
    const user = this.users.get(String((review.spec as { token?: unknown } | undefined)?.token ?? ''));
    const status = user === undefined
      ? { authenticated: false, error: 'invalid bearer token' }
      : { authenticated: true, user: { username: user.username, ...(user.uid !== undefined && { uid: user.uid }), groups: [...(user.groups ?? [])] } };
    return { ...review, status };
  }

  private reviewAccess(review: KubeObject): KubeObject {
    const spec = (review.spec ?? {}) as { user?: string; nonResourceAttributes?: { verb?: string; path?: string } };
    const { verb = '', path = '' } = spec.nonResourceAttributes ?? {};
    const rules = this.rules.get(spec.user ?? '') ?? new Set<string>();
    const allowed = [`${verb} ${path}`, `* ${path}`, `${verb} *`, '* *'].some((r) => rules.has(r));
    return { ...review, status: allowed ? { allowed: true, reason: 'allowed by the fake\'s rules' } : { allowed: false, reason: `no rule of the fake allows ${spec.user ?? ''} to ${verb} ${path}` } };
  }

  private select(resource: ResourceKind, namespace: string | undefined): KubeObject[] {
    const prefix = namespace === undefined ? `${resource.plural}/` : `${resource.plural}/${namespace}/`;
    return [...this.objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([, o]) => o);
  }

  private getOne({ resource, namespace, name }: Target): KubeObject | Failure {
    return this.objects.get(objectKey(resource, namespace, name!)) ?? notFound(resource, name!);
  }

  private create({ resource, namespace }: Target, obj: KubeObject): KubeObject | Failure {
    const meta = { ...obj.metadata };
    if (meta.namespace !== undefined && resource.namespaced && meta.namespace !== namespace) {
      return new Failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    }
    const name = meta.name ?? (meta.generateName === undefined ? undefined : meta.generateName + randomUUID().slice(0, 5));
    if (name === undefined || name === '') return new Failure(422, 'Invalid', 'metadata.name: Required value');
    const key = objectKey(resource, namespace, name);
    if (this.objects.has(key)) return new Failure(409, 'AlreadyExists', `${resource.plural} "${name}" already exists`);
    const stored: KubeObject = {
      ...obj,
      apiVersion: apiVersion(resource),
      kind: resource.kind,
      metadata: { ...meta, name, ...(namespace !== undefined && { namespace }), uid: randomUUID(), creationTimestamp: new Date().toISOString(), resourceVersion: '' },
    };
    return this.commit('ADDED', resource, key, stored);
  }

  private update({ resource, namespace, name }: Target, obj: KubeObject): KubeObject | Failure {
    const key = objectKey(resource, namespace, name!);
    const existing = this.objects.get(key);
    if (existing === undefined) return notFound(resource, name!);
    if (obj.metadata?.name !== name) return new Failure(400, 'BadRequest', 'the name of the object does not match the name on the URL');
    const precondition = obj.metadata?.resourceVersion;
    if (precondition !== undefined && precondition !== '' && precondition !== existing.metadata!.resourceVersion) {
      return new Failure(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${resource.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    const { uid, creationTimestamp } = existing.metadata!;
    const stored: KubeObject = { ...obj, apiVersion: apiVersion(resource), kind: resource.kind, metadata: { ...obj.metadata, namespace, uid, creationTimestamp } };
    return this.commit('MODIFIED', resource, key, stored);
  }

  private delete({ resource, namespace, name }: Target): KubeObject | Failure {
    const key = objectKey(resource, namespace, name!);
    const existing = this.objects.get(key);
    if (existing === undefined) return notFound(resource, name!);
    this.commit('DELETED', resource, key, structuredClone(existing));
    return { apiVersion: 'v1', kind: 'Status', status: 'Success', details: { name, kind: resource.plural } };
  }

  private commit(type: EventType, resource: ResourceKind, key: string, obj: KubeObject): KubeObject {
    const rv = ++this.revision;
    obj.metadata!.resourceVersion = String(rv);
    if (type === 'DELETED') this.objects.delete(key);
    else this.objects.set(key, obj);
    const event: WatchEvent = { type, resource, object: structuredClone(obj), rv };
    this.history.push(event);
    if (this.history.length > this.historyLimit) this.oldestResumable = this.history.shift()!.rv;
    for (const w of this.watchers) if (watcherWants(w, event)) writeEvent(w.res, event);
    return obj;
  }

  private watch(resource: ResourceKind, namespace: string | undefined, matches: (o: KubeObject) => boolean, from: string, res: ServerResponse): void {
    const w: Watcher = { resource, namespace, matches, res };
    const fromRv = from === '' || from === '0' ? undefined : Number(from);
    if (fromRv !== undefined && (!Number.isInteger(fromRv) || fromRv < this.oldestResumable)) {
      return sendStatus(res, { code: 410, reason: 'Expired', message: `too old resource version: ${from} (${this.oldestResumable})` });
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders(); // clients wait for the headers before they watch
    // Without a resourceVersion a watch starts with the current state as ADDED events, as Kubernetes does.
    const backlog: WatchEvent[] = fromRv === undefined
      ? this.select(resource, namespace).map((object) => ({ type: 'ADDED', resource, object, rv: Number(object.metadata!.resourceVersion) }))
      : this.history.filter((e) => e.rv > fromRv);
    for (const e of backlog) if (watcherWants(w, e)) writeEvent(res, e);
    this.watchers.add(w);
    res.on('close', () => this.watchers.delete(w));
  }
}

/** A KubeConfig pointing at the fake, authenticating with its token. */
export function kubeConfigFor(fake: FakeKubeApiServer, namespace = 'default'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: fake.url, skipTLSVerify: true }],
    users: [{ name: 'fake', token: fake.token }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake', namespace }],
    currentContext: 'fake',
  });
  return kc;
}

function apiVersion(r: ResourceKind): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

function objectKey(r: ResourceKind, namespace: string | undefined, name: string): string {
  return `${r.plural}/${namespace ?? ''}/${name}`;
}

function notFound(r: ResourceKind, name: string): Failure {
  return new Failure(404, 'NotFound', `${r.plural} "${name}" not found`);
}

function watcherWants(w: Watcher, e: WatchEvent): boolean {
  return e.resource === w.resource && (w.namespace === undefined || e.object.metadata?.namespace === w.namespace) && w.matches(e.object);
}

function writeEvent(res: ServerResponse, e: WatchEvent): void {
  res.write(JSON.stringify({ type: e.type, object: e.object }) + '\n');
}

/** Equality-based selectors only ("a=b,c!=d"); fields metadata.name and metadata.namespace. */
function selectorFilter(labelSelector: string | undefined, fieldSelector: string | undefined): (o: KubeObject) => boolean {
  const labels = parseSelector(labelSelector);
  const fields = parseSelector(fieldSelector);
  return (o) =>
    labels.every(({ key, value, equal }) => (o.metadata?.labels?.[key] === value) === equal) &&
    fields.every(({ key, value, equal }) => {
      const actual = key === 'metadata.name' ? o.metadata?.name : key === 'metadata.namespace' ? o.metadata?.namespace : undefined;
      return (actual === value) === equal;
    });
}

function parseSelector(text: string | undefined): { key: string; value: string; equal: boolean }[] {
  if (text === undefined || text === '') return [];
  return text.split(',').map((term) => {
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(term.trim());
    if (m === null) throw new Error(`fake API server: unsupported selector term "${term}"`);
    return { key: m[1]!.trim(), value: m[3]!.trim(), equal: m[2] !== '!=' };
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendStatus(res: ServerResponse, f: FailureResponse): void {
  if (res.headersSent) return void res.end();
  send(res, f.code, { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: f.reason, message: f.message ?? f.reason, code: f.code });
}
