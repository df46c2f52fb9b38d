import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { KubeObject } from '@ipledger/messaging';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { SocksProxyAgent } from 'socks-proxy-agent';
import type { KubeConnection } from './kubeconfig';

/** The body Kubernetes sends with a failure (HTTP error, or the object of an ERROR watch event). */
export interface KubeStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

/** A request Kubernetes refused: the HTTP status and, when it sent one, its `Status` body. */
export class KubeApiError extends Error {
  override name = 'KubeApiError';
  constructor(
    readonly statusCode: number,
    readonly status: KubeStatus | undefined,
    context: string,
  ) {
    super(`${context}: ${statusCode} ${status?.reason ?? ''} ${status?.message ?? ''}`.trimEnd());
  }
}

/** 410 Gone: the requested resourceVersion or continue token is older than the server's history; relist. */
export class ResourceExpiredError extends KubeApiError {
  override name = 'ResourceExpiredError';
}

export interface KubeList {
  metadata: { resourceVersion: string; continue?: string };
  items: KubeObject[];
}

/** ERROR events never reach the caller: `watch` throws them as a `KubeApiError` (410: `ResourceExpiredError`). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: KubeObject;
}

export interface ListOptions {
  limit?: number;
  continue?: string;
  /** aborting fails the request */
  signal?: AbortSignal;
}

export interface WatchOptions {
  resourceVersion?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  /** aborting ends the iteration quietly */
  signal?: AbortSignal;
}

export interface KubeClient {
  list(path: string, options?: ListOptions): Promise<KubeList>;
  /** ends when the server ends the stream; throws on errors */
  watch(path: string, options?: WatchOptions): AsyncIterable<WatchEvent>;
}

export interface HttpKubeClientOptions {
  /** a list request fails after this long without data */
  listIdleTimeoutMs?: number;
  /** a watch fails after this long without data beyond its own timeoutSeconds (a dead connection) */
  watchIdleGraceMs?: number;
}

/** `KubeClient` over node:http(s): no client library, just the list/watch protocol. */
export class HttpKubeClient implements KubeClient {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly listIdleTimeoutMs: number;
  private readonly watchIdleGraceMs: number;

  constructor(
    private readonly connection: KubeConnection,
    options: HttpKubeClientOptions = {},
  ) {
    this.base = new URL(connection.server);
    this.agent = connectionAgent(connection, this.base.protocol === 'https:');
    this.listIdleTimeoutMs = options.listIdleTimeoutMs ?? 60_000;
    this.watchIdleGraceMs = options.watchIdleGraceMs ?? 30_000;
  }

  async list(path: string, options: ListOptions = {}): Promise<KubeList> {
    const query = { limit: options.limit?.toString(), continue: options.continue };
    const response = await this.get(path, query, this.listIdleTimeoutMs, options.signal);
    const list = JSON.parse(await readBody(response)) as KubeList;
    return { metadata: list.metadata, items: list.items ?? [] };
  }

  async *watch(path: string, options: WatchOptions = {}): AsyncGenerator<WatchEvent> {
    const query = {
      watch: '1',
      resourceVersion: options.resourceVersion,
      timeoutSeconds: options.timeoutSeconds?.toString(),
      allowWatchBookmarks: options.allowWatchBookmarks ? 'true' : undefined,
    };
    const idleMs = (options.timeoutSeconds ?? 0) * 1000 + this.watchIdleGraceMs;
    let response: IncomingMessage;
    try {
      response = await this.get(path, query, idleMs, options.signal);
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    }
    try {
      for await (const line of lines(response)) {
        const event = JSON.parse(line) as { type: string; object: unknown };
        if (event.type === 'ERROR')
          throw kubeApiError((event.object as KubeStatus).code ?? 500, event.object as KubeStatus, `watch ${path}`);
        yield event as WatchEvent;
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    } finally {
      response.destroy();
    }
  }

  /** A JSON merge patch (RFC 7386), e.g. of a status subresource; resolves with the object the server returns. */
  async mergePatch(path: string, patch: unknown): Promise<KubeObject> {
    const body = JSON.stringify(patch);
    const response = await this.request('PATCH', path, {}, this.listIdleTimeoutMs, undefined, {
      'content-type': 'application/merge-patch+json',
      body,
    });
    return JSON.parse(await readBody(response)) as KubeObject;
  }

  /**
   * A POST of an object, resolving with the object the server answers; `timeoutMs` (default the
   * list's) bounds the wait for data. A review (TokenReview) is created this way: the server fills
   * in its status and stores nothing.
   */
  async create<T>(path: string, object: unknown, timeoutMs = this.listIdleTimeoutMs): Promise<T> {
    const response = await this.request('POST', path, {}, timeoutMs, undefined, {
      'content-type': 'application/json',
      body: JSON.stringify(object),
    });
    return JSON.parse(await readBody(response)) as T;
  }

  /** Frees the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private get(path: string, query: Record<string, string | undefined>, idleMs: number, signal?: AbortSignal): Promise<IncomingMessage> {
    return this.request('GET', path, query, idleMs, signal);
  }

  /** Resolves with a 2xx response; anything else becomes a `KubeApiError`. */
  private async request(
    method: 'GET' | 'PATCH' | 'POST',
    path: string,
    query: Record<string, string | undefined>,
    idleMs: number,
    signal?: AbortSignal,
    payload?: { 'content-type': string; body: string },
  ): Promise<IncomingMessage> {
    const url = new URL(this.base.pathname.replace(/\/$/, '') + path, this.base);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    if (payload) headers['content-type'] = payload['content-type'];
    if (this.connection.token) headers.authorization = `Bearer ${await this.connection.token()}`;
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = transport.request(url, { method, agent: this.agent, headers, signal, timeout: idleMs }, (response) => {
        const code = response.statusCode ?? 0;
        if (code >= 200 && code < 300) return resolve(response);
        readBody(response).then((body) => reject(kubeApiError(code, parseStatus(body), `${method} ${url.pathname}`)), reject);
      });
      request.on('timeout', () => request.destroy(new Error(`${method} ${url.pathname}: no data for ${idleMs} ms`)));
      request.on('error', reject);
      request.end(payload?.body);
    });
  }
}

/**
 * Kept-alive connections to the server, directly or through its proxy: a CONNECT tunnel (hpagent) for
 * an HTTP(S) proxy, SOCKS5 otherwise; TLS to the server runs inside the tunnel.
 */
function connectionAgent(connection: KubeConnection, secure: boolean): http.Agent {
  const tls = secure
    ? { ca: connection.ca, cert: connection.cert, key: connection.key, rejectUnauthorized: !connection.insecureSkipTlsVerify }
    : {};
  const proxy = connection.proxyUrl;
  if (!proxy) return secure ? new https.Agent({ keepAlive: true, ...tls }) : new http.Agent({ keepAlive: true });
  if (proxy.protocol.startsWith('socks')) {
    // as Go's SOCKS5 dialer, which client-go uses for socks5://, the proxy resolves the server's name
    const remoteDns = new URL(proxy);
    remoteDns.protocol = 'socks5h:';
    return new SocksProxyAgent(remoteDns, { keepAlive: true, ...tls });
  }
  return secure ? new HttpsProxyAgent({ proxy, keepAlive: true, ...tls }) : new HttpProxyAgent({ proxy, keepAlive: true });
}

function kubeApiError(code: number, status: KubeStatus | undefined, context: string): KubeApiError {
  return code === 410 ? new ResourceExpiredError(code, status, context) : new KubeApiError(code, status, context);
}

function parseStatus(body: string): KubeStatus | undefined {
  try {
    const status = JSON.parse(body) as KubeStatus;
    return status?.kind === 'Status' ? status : { message: body.slice(0, 200) };
  } catch {
    return body ? { message: body.slice(0, 200) } : undefined;
  }
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Newline-delimited records, whatever the chunk boundaries (the decoder also keeps multi-byte characters whole). */
async function* lines(response: IncomingMessage): AsyncGenerator<string> {
  response.setEncoding('utf8');
  let pending = '';
  for await (const chunk of response) {
    pending += chunk as string;
    let start = 0;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', start)) {
      const line = pending.slice(start, end).trim();
      if (line) yield line;
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  if (pending.trim()) yield pending.trim();
}
