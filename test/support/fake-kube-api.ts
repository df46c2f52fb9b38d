import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import http, { type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  KUBE_KINDS,
  KUBE_RESOURCE_PATHS,
  OPTIONAL_KINDS,
  objectKey,
  type KubeKind,
  type KubeObject,
  type KubeObjectMeta,
} from '@ipledger/messaging';

/**
 * An in-process Kubernetes API server (plain HTTP, or HTTPS with `tls`, on a loopback port 0) that speaks the list/watch
 * protocol for the kinds at `KUBE_RESOURCE_PATHS` (all namespaces), like etcd behind an API server:
 *
 * - one global resourceVersion counter; every write stores a new immutable object with the next
 *   resourceVersion, a `metadata.uid` (random unless given, kept across updates) and a
 *   `creationTimestamp`, and appends an event to the kind's history;
 * - list `GET path?limit=&continue=`: `{kind: 'PodList', apiVersion, metadata: {resourceVersion, continue?,
 *   remainingItemCount?}, items}`, items sorted by key, every page from the same snapshot; a continue
 *   token older than the last `compact()` gets HTTP 410 with a `Status` (reason Expired);
 * - watch `GET path?watch=1&resourceVersion=&allowWatchBookmarks=&timeoutSeconds=`: chunked JSON lines,
 *   first the history after resourceVersion, then live events; without resourceVersion (or "0") an
 *   ADDED for every current object first; the stream ends after timeoutSeconds. A resourceVersion older
 *   than the last `compact()` gets `expiredWatch`: 'event' (default; as the watch cache does: 200, then an
 *   ERROR event carrying a 410 Status, then the end) or 'status' (HTTP 410 before streaming);
 * - BOOKMARK events `{type, object: {kind, apiVersion, metadata: {resourceVersion}}}` at the current
 *   resourceVersion to watches that allow them, every `bookmarkIntervalMs` and on `sendBookmarks()`;
 * - with `token` set, anything but `Authorization: Bearer <token>` gets 401;
 * - TokenReview (`POST /apis/authentication.k8s.io/v1/tokenreviews`, answered 201) of the ServiceAccount
 *   tokens it issued (`issueToken`): authenticated while not revoked nor expired and made for one of the
 *   review's audiences, with the pod's node in `user.extra["authentication.kubernetes.io/node-name"]`
 *   as Kubernetes 1.30 and later give it for a pod-bound token; any other token is not authenticated.
 */
export interface FakeKubeApiOptions {
  token?: string;
  bookmarkIntervalMs?: number;
  expiredWatch?: 'event' | 'status';
  /** serve HTTPS with this key and certificate */
  tls?: { key: Buffer; cert: Buffer };
  /** the optional kinds (KubeVirt, IPAMClaim) whose CustomResourceDefinitions are installed; the others answer 404 as on a cluster without them */
  crds?: KubeKind[];
}

export type FakeKubeVerb = 'list' | 'watch';

/** A projected ServiceAccount token as kubelet would get it for a pod. */
export interface FakeServiceAccountToken {
  /** `<namespace>:<name>`, default `ipledger:ipledger-cni` */
  serviceAccount?: string;
  /** the pod's node; null: a token bound to no node (as before Kubernetes 1.30, or not bound to a pod) */
  node: string | null;
  /** default ['ipledger'] */
  audiences?: string[];
  /** default 3600 */
  expirationSeconds?: number;
}

export interface FakeTokenReview {
  /** HTTP status answered */
  status: number;
  authenticated: boolean;
}

export interface FakeKubeRequest {
  kind: KubeKind;
  verb: FakeKubeVerb;
  query: Record<string, string>;
  /** HTTP status answered */
  status: number;
}

export interface FakeKubeStatusPatch {
  kind: KubeKind;
  name: string;
  /** HTTP status answered */
  status: number;
  body: string;
}

/** What a test writes: the server fills in uid, resourceVersion, creationTimestamp, kind and apiVersion. */
export type KubeObjectInput = Omit<KubeObject, 'metadata'> & { metadata: Partial<KubeObjectMeta> & { name: string } };

export interface FakeKubeApi {
  url: string;
  /**
   * writes `<dir>/kubeconfig` pointing at this server (token, insecure-skip-tls-verify) and returns its
   * path; `cluster` fields replace or add to these (another `server` name, `proxy-url`...)
   */
  writeKubeconfig(dir: string, cluster?: Record<string, unknown>): string;
  /** creates or replaces (pods and statefulsets default to namespace "default") */
  upsert(kind: KubeKind, object: KubeObjectInput): KubeObject;
  /** deletes; the DELETED event carries the last object with a new resourceVersion, which is returned */
  remove(kind: KubeKind, key: string): KubeObject | undefined;
  get(kind: KubeKind, key: string): KubeObject | undefined;
  objects(kind: KubeKind): KubeObject[];
  /** the current global resourceVersion */
  resourceVersion(): string;
  /** forgets all history up to now: older watch resourceVersions and continue tokens get 410 Gone */
  compact(): void;
  /** ends every open watch abruptly (connection reset mid-stream) */
  breakWatches(): void;
  /** ends every open watch normally, as its timeoutSeconds would */
  endWatches(): void;
  sendBookmarks(): void;
  /** the next `times` requests for the kind (of `verb`, or any) fail with `status` and a Status body */
  failNext(kind: KubeKind, status: number, times?: number, verb?: FakeKubeVerb): void;
  activeWatches(kind: KubeKind): number;
  /** every request answered, in order */
  requests: FakeKubeRequest[];
  /** every PATCH of a status subresource, in order */
  statusPatches: FakeKubeStatusPatch[];
  requestCount(kind: KubeKind, verb: FakeKubeVerb): number;
  /** a signed-looking JWT this server will vouch for in a TokenReview */
  issueToken(token: FakeServiceAccountToken): string;
  /** as deleting the token's pod does: reviews no longer authenticate it */
  revokeToken(token: string): void;
  /** the next `times` TokenReviews fail with `status` */
  failTokenReviews(status: number, times?: number): void;
  /** every TokenReview answered, in order */
  tokenReviews: FakeTokenReview[];
  /** as applying the kind's CustomResourceDefinition does: its path is served from now on */
  installCrd(kind: KubeKind): void;
  close(): Promise<void>;
}

const TYPES: Record<KubeKind, { apiVersion: string; kind: string; namespaced: boolean }> = {
  node: { apiVersion: 'v1', kind: 'Node', namespaced: false },
  pod: { apiVersion: 'v1', kind: 'Pod', namespaced: true },
  statefulset: { apiVersion: 'apps/v1', kind: 'StatefulSet', namespaced: true },
  ippool: { apiVersion: 'ipam.ipledger.io/v1alpha1', kind: 'IPPool', namespaced: false },
  namespace: { apiVersion: 'v1', kind: 'Namespace', namespaced: false },
  deployment: { apiVersion: 'apps/v1', kind: 'Deployment', namespaced: true },
  replicaset: { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespaced: true },
  virtualmachine: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', namespaced: true },
  virtualmachineinstance: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', namespaced: true },
  ipamclaim: { apiVersion: 'k8s.cni.cncf.io/v1alpha1', kind: 'IPAMClaim', namespaced: true },
};

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/** list snapshots kept for continue tokens; older ones expire like a compacted etcd revision */
const MAX_SNAPSHOTS = 16;

interface HistoryEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

interface OpenWatch {
  kind: KubeKind;
  response: ServerResponse;
  bookmarks: boolean;
  timer?: NodeJS.Timeout;
}

interface Failure {
  status: number;
  times: number;
  verb?: FakeKubeVerb;
}

export async function startFakeKubeApi(options: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
  let rv = 0;
  let compactedRv = 0;
  const stores = Object.fromEntries(KUBE_KINDS.map((kind) => [kind, new Map<string, KubeObject>()])) as Record<
    KubeKind,
    Map<string, KubeObject>
  >;
  const history = Object.fromEntries(KUBE_KINDS.map((kind) => [kind, [] as HistoryEvent[]])) as Record<KubeKind, HistoryEvent[]>;
  const snapshots = new Map<string, KubeObject[]>();
  const watches = new Set<OpenWatch>();
  const failures = new Map<KubeKind, Failure[]>();
  const requests: FakeKubeRequest[] = [];
  const statusPatches: FakeKubeStatusPatch[] = [];
  const issued = new Map<string, { username: string; node: string | null; audiences: string[]; expires: number; revoked: boolean }>();
  const tokenReviews: FakeTokenReview[] = [];
  const tokenReviewFailures: Failure[] = [];
  const kindsByPath = new Map(KUBE_KINDS.map((kind) => [KUBE_RESOURCE_PATHS[kind], kind]));
  const installed = new Set<KubeKind>(KUBE_KINDS.filter((kind) => !OPTIONAL_KINDS.has(kind) || options.crds?.includes(kind)));

  function record(kind: KubeKind, type: HistoryEvent['type'], object: KubeObject): void {
    const event = { rv: Number(object.metadata.resourceVersion), type, object };
    history[kind].push(event);
    for (const watch of watches) if (watch.kind === kind) send(watch, event);
  }

  function send(watch: OpenWatch, { type, object }: { type: string; object: unknown }): void {
    watch.response.write(`${JSON.stringify({ type, object })}\n`);
  }

  function bookmark(watch: OpenWatch): void {
    const { apiVersion, kind } = TYPES[watch.kind];
    send(watch, { type: 'BOOKMARK', object: { kind, apiVersion, metadata: { resourceVersion: String(rv) } } });
  }

  function sortedObjects(kind: KubeKind): KubeObject[] {
    const store = stores[kind];
    return [...store.keys()].sort().map((key) => store.get(key)!);
  }

  function list(kind: KubeKind, query: URLSearchParams, response: ServerResponse): number {
    const limit = Number(query.get('limit')) || Infinity;
    const token = query.get('continue');
    let snapshotRv = rv;
    let offset = 0;
    let items: KubeObject[] | undefined;
    if (token) {
      try {
        ({ rv: snapshotRv, offset } = JSON.parse(Buffer.from(token, 'base64url').toString()) as { rv: number; offset: number });
      } catch {
        return fail(response, 400, `invalid continue token ${token}`);
      }
      items = snapshots.get(`${kind}:${snapshotRv}`);
      if (!items || snapshotRv < compactedRv) {
        return fail(response, 410, `The provided continue parameter is too old (resourceVersion ${snapshotRv}); list again without it`);
      }
    } else {
      items = sortedObjects(kind);
    }
    const page = items.slice(offset, offset + limit);
    const remaining = items.length - offset - page.length;
    const metadata: Record<string, unknown> = { resourceVersion: String(snapshotRv) };
    if (remaining > 0) {
      snapshots.set(`${kind}:${snapshotRv}`, items);
      if (snapshots.size > MAX_SNAPSHOTS) snapshots.delete(snapshots.keys().next().value!);
      metadata.continue = Buffer.from(JSON.stringify({ rv: snapshotRv, offset: offset + page.length })).toString('base64url');
      metadata.remainingItemCount = remaining;
    }
    const { apiVersion, kind: typeKind } = TYPES[kind];
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ kind: `${typeKind}List`, apiVersion, metadata, items: page }));
    return 200;
  }

  function watch(kind: KubeKind, query: URLSearchParams, response: ServerResponse): number {
    const from = query.get('resourceVersion');
    const fromRv = from ? Number(from) : 0;
    if (!Number.isInteger(fromRv) || fromRv < 0) return fail(response, 400, `invalid resourceVersion ${from}`);
    const expired = fromRv > 0 && fromRv < compactedRv;
    const expiredMessage = `too old resource version: ${fromRv} (${compactedRv})`;
    if (expired && options.expiredWatch === 'status') return fail(response, 410, expiredMessage);
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    const open: OpenWatch = { kind, response, bookmarks: query.get('allowWatchBookmarks') === 'true' };
    if (expired) {
      send(open, { type: 'ERROR', object: statusBody(410, expiredMessage) });
      response.end();
      return 200;
    }
    if (fromRv === 0) {
      for (const object of sortedObjects(kind)) send(open, { type: 'ADDED', object });
    } else {
      for (const event of history[kind]) if (event.rv > fromRv) send(open, event);
    }
    const timeoutSeconds = Number(query.get('timeoutSeconds'));
    if (timeoutSeconds > 0) open.timer = setTimeout(() => response.end(), timeoutSeconds * 1000);
    watches.add(open);
    response.on('close', () => {
      clearTimeout(open.timer);
      watches.delete(open);
    });
    return 200;
  }

  function fail(response: ServerResponse, status: number, message: string): number {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(statusBody(status, message)));
    return status;
  }

  function injectedFailure(kind: KubeKind, verb: FakeKubeVerb): number | undefined {
    const queue = failures.get(kind) ?? [];
    const failure = queue.find((candidate) => !candidate.verb || candidate.verb === verb);
    if (!failure) return undefined;
    if (--failure.times === 0) queue.splice(queue.indexOf(failure), 1);
    return failure.status;
  }

  /** PATCH `<path>/<name>/status` (application/merge-patch+json): only the status changes; a `metadata.uid` in it is a precondition. */
  function patchStatus(kind: KubeKind, name: string, request: http.IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const existing = stores[kind].get(name);
      let status: number;
      if (options.token && request.headers.authorization !== `Bearer ${options.token}`) status = fail(response, 401, 'Unauthorized');
      else if (request.headers['content-type'] !== 'application/merge-patch+json')
        status = fail(response, 415, `unsupported media type ${request.headers['content-type']}`);
      else if (!existing) status = fail(response, 404, `${kind} ${name} not found`);
      else {
        const patch = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata?: { uid?: string }; status?: unknown };
        if (patch.metadata?.uid && patch.metadata.uid !== existing.metadata.uid) {
          status = fail(
            response,
            409,
            `Precondition failed: UID in precondition: ${patch.metadata.uid}, UID in object meta: ${existing.metadata.uid}`,
          );
        } else {
          const object: KubeObject = {
            ...existing,
            metadata: { ...existing.metadata, resourceVersion: String(++rv) },
            status: mergePatch(existing.status ?? {}, patch.status ?? {}) as Record<string, unknown>,
          };
          stores[kind].set(name, object);
          record(kind, 'MODIFIED', object);
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(object));
          status = 200;
        }
      }
      statusPatches.push({ kind, name, status, body: Buffer.concat(chunks).toString('utf8') });
    });
  }

  /** TokenReview: the verdict on a token this server issued, for the audiences asked (the API server's own when none). */
  function reviewToken(request: http.IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (options.token && request.headers.authorization !== `Bearer ${options.token}`) {
        tokenReviews.push({ status: fail(response, 401, 'Unauthorized'), authenticated: false });
        return;
      }
      const failure = tokenReviewFailures[0];
      if (failure) {
        if (--failure.times === 0) tokenReviewFailures.shift();
        tokenReviews.push({ status: fail(response, failure.status, `injected failure ${failure.status}`), authenticated: false });
        return;
      }
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { spec: { token: string; audiences?: string[] } };
      const asked = review.spec.audiences?.length ? review.spec.audiences : ['https://kubernetes.default.svc'];
      const token = issued.get(review.spec.token);
      const audiences = token ? asked.filter((audience) => token.audiences.includes(audience)) : [];
      const authenticated = Boolean(token && !token.revoked && token.expires > Date.now() && audiences.length > 0);
      const status = authenticated
        ? {
            authenticated,
            audiences,
            user: {
              username: token!.username,
              uid: randomUUID(),
              groups: ['system:serviceaccounts', `system:serviceaccounts:${token!.username.split(':')[2]}`, 'system:authenticated'],
              extra: {
                'authentication.kubernetes.io/pod-name': ['ipledger-cni-x'],
                ...(token!.node ? { 'authentication.kubernetes.io/node-name': [token!.node] } : {}),
              },
            },
          }
        : { authenticated: false, error: 'invalid bearer token' };
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: {}, spec: review.spec, status }),
      );
      tokenReviews.push({ status: 201, authenticated });
    });
  }

  const handle: http.RequestListener = (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    if (url.pathname === '/apis/authentication.k8s.io/v1/tokenreviews' && request.method === 'POST') return reviewToken(request, response);
    const subresource = /^(.+)\/([^/]+)\/status$/.exec(url.pathname);
    const statusKind = subresource ? kindsByPath.get(subresource[1]) : undefined;
    if (statusKind === 'ippool' && request.method === 'PATCH')
      return patchStatus(statusKind, decodeURIComponent(subresource![2]), request, response);
    const kind = kindsByPath.get(url.pathname);
    if (!kind || !installed.has(kind)) return void fail(response, 404, `no resource at ${url.pathname}`);
    const verb: FakeKubeVerb = ['1', 'true'].includes(url.searchParams.get('watch') ?? '') ? 'watch' : 'list';
    let status: number;
    const injected = injectedFailure(kind, verb);
    if (request.method !== 'GET') status = fail(response, 405, `${request.method} is not supported`);
    else if (options.token && request.headers.authorization !== `Bearer ${options.token}`) status = fail(response, 401, 'Unauthorized');
    else if (injected) status = fail(response, injected, `injected failure ${injected}`);
    else status = verb === 'watch' ? watch(kind, url.searchParams, response) : list(kind, url.searchParams, response);
    requests.push({ kind, verb, query: Object.fromEntries(url.searchParams), status });
  };
  const server = options.tls ? https.createServer(options.tls, handle) : http.createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bookmarkTimer = options.bookmarkIntervalMs ? setInterval(() => api.sendBookmarks(), options.bookmarkIntervalMs) : undefined;

  const api: FakeKubeApi = {
    url,
    requests,
    statusPatches,
    writeKubeconfig(dir, cluster = {}) {
      const path = join(dir, 'kubeconfig');
      const user = options.token ? { token: options.token } : {};
      const config = {
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'fake',
        clusters: [{ name: 'fake', cluster: { server: url, 'insecure-skip-tls-verify': true, ...cluster } }],
        users: [{ name: 'fake', user }],
        contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake' } }],
      };
      writeFileSync(path, stringify(config));
      return path;
    },
    installCrd(kind) {
      installed.add(kind);
    },
    upsert(kind, input) {
      const type = TYPES[kind];
      if (!type.namespaced && input.metadata.namespace)
        throw new Error(`${kind} is cluster-scoped; got namespace ${input.metadata.namespace}`);
      const namespace = type.namespaced ? (input.metadata.namespace ?? 'default') : undefined;
      const key = objectKey({ metadata: { name: input.metadata.name, namespace } });
      const existing = stores[kind].get(key);
      // as for a CRD with a status subresource: the generation counts changes of spec, and writes of the object keep the status
      const specChanged = !existing || JSON.stringify(existing.spec) !== JSON.stringify(input.spec);
      const generation = existing?.metadata.generation === undefined ? 1 : existing.metadata.generation + (specChanged ? 1 : 0);
      const object: KubeObject = {
        ...structuredClone(input),
        ...(kind === 'ippool' && existing?.status ? { status: existing.status } : {}),
        apiVersion: type.apiVersion,
        kind: type.kind,
        metadata: {
          ...structuredClone(input.metadata),
          name: input.metadata.name,
          ...(namespace ? { namespace } : {}),
          uid: input.metadata.uid ?? existing?.metadata.uid ?? randomUUID(),
          generation,
          resourceVersion: String(++rv),
          creationTimestamp: existing?.metadata.creationTimestamp ?? input.metadata.creationTimestamp ?? new Date().toISOString(),
        },
      };
      stores[kind].set(key, object);
      record(kind, existing ? 'MODIFIED' : 'ADDED', object);
      return object;
    },
    remove(kind, key) {
      const existing = stores[kind].get(key);
      if (!existing) return undefined;
      stores[kind].delete(key);
      const object = { ...existing, metadata: { ...existing.metadata, resourceVersion: String(++rv) } };
      record(kind, 'DELETED', object);
      return object;
    },
    get: (kind, key) => stores[kind].get(key),
    objects: (kind) => sortedObjects(kind),
    resourceVersion: () => String(rv),
    compact() {
      compactedRv = rv;
      for (const kind of KUBE_KINDS) history[kind] = [];
      for (const key of snapshots.keys()) if (Number(key.split(':')[1]) < compactedRv) snapshots.delete(key);
    },
    breakWatches() {
      for (const open of watches) open.response.destroy();
    },
    endWatches() {
      for (const open of watches) open.response.end();
    },
    sendBookmarks() {
      for (const open of watches) if (open.bookmarks) bookmark(open);
    },
    failNext(kind, status, times = 1, verb) {
      failures.set(kind, [...(failures.get(kind) ?? []), { status, times, verb }]);
    },
    activeWatches: (kind) => [...watches].filter((open) => open.kind === kind).length,
    requestCount: (kind, verb) => requests.filter((request) => request.kind === kind && request.verb === verb).length,
    tokenReviews,
    issueToken({ serviceAccount = 'ipledger:ipledger-cni', node, audiences = ['ipledger'], expirationSeconds = 3600 }) {
      const [namespace, name] = serviceAccount.split(':');
      const expires = Date.now() + expirationSeconds * 1000;
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const claims = {
        aud: audiences,
        exp: Math.floor(expires / 1000),
        sub: `system:serviceaccount:${namespace}:${name}`,
        'kubernetes.io': { namespace, serviceaccount: { name }, ...(node ? { node: { name: node } } : {}) },
      };
      const token = `${part({ alg: 'RS256', kid: 'fake' })}.${part(claims)}.${randomBytes(32).toString('base64url')}`;
      issued.set(token, { username: claims.sub, node, audiences, expires, revoked: false });
      return token;
    },
    revokeToken(token) {
      issued.get(token)!.revoked = true;
    },
    failTokenReviews(status, times = 1) {
      tokenReviewFailures.push({ status, times });
    },
    async close() {
      clearInterval(bookmarkTimer);
      for (const open of watches) open.response.end();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  return api;
}

/** RFC 7386: objects merge key by key, null removes, anything else (arrays too) replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function statusBody(code: number, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: REASONS[code] ?? 'Unknown', code };
}
