import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { IpamConfig } from './cni-config';
import { CNI_CODES, CniError } from './cni-error';
import type { Log } from './diagnostics';

interface TlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** node checks the certificate against this name, not the url's host */
  servername?: string;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** Answers worth another try inside the deadline: the API or a proxy in front of it is briefly down. */
const RETRIED_STATUS = new Set([502, 503, 504]);
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * node's codes for a certificate it does not trust (unknown CA, wrong name, expired) and for a
 * server's TLS alert (our certificate refused): retrying cannot help, the configuration must change.
 */
const isTlsFailure = (code: string | undefined) =>
  code !== undefined && (/CERT|SIGNATURE|SELF_SIGNED|ISSUER/.test(code) || /^ERR_SSL_.*ALERT/.test(code));

/**
 * One HTTP exchange with node:http (node:https for an https url, loaded only then). Not fetch:
 * loading fetch's implementation (undici) costs more than starting node itself, on every call
 * kubelet makes (bench:cni measures both). No keep-alive: the process ends after one call.
 */
function exchange(
  url: string,
  options: { method: string; headers: Record<string, string> } & TlsOptions,
  payload: string | undefined,
  timeoutMs: number,
) {
  // TLS loads only for https; not import(): a single executable application has no loader for it
  const client = url.startsWith('https:') ? process.getBuiltinModule('node:https') : http;
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = client.request(url, { ...options, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const timer = setTimeout(() => req.destroy(new TimeoutError()), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(payload);
  });
}

/**
 * The API over HTTP. Every request of one plugin call shares one deadline
 * (`timeoutSeconds`): a lost connection, a refused one or a 502/503/504 is retried with growing
 * pauses until then, and then reported as code 11 ("try again later"); kubelet calls again anyway.
 * A 4xx is the API's refusal: code 100 with the API's code and message.
 */
export class ApiClient {
  private readonly deadline: number;
  /** the allocations of the cluster `ipam.cluster` names (its TokenReview is asked of that cluster's API server), else the token's */
  readonly allocations: string;

  constructor(
    private readonly ipam: IpamConfig,
    private readonly log: Log,
  ) {
    this.deadline = Date.now() + ipam.timeoutSeconds * 1000;
    this.allocations = ipam.cluster ? `/v1/clusters/${ipam.cluster}/allocations` : '/v1/allocations';
  }

  async request(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.authorization() };
    const tls = this.tlsFiles();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
    let pause = FIRST_PAUSE_MS;
    // what the last attempt met: a retry cut short by the deadline still says why it was retried (POD_NOT_SEEN...)
    let earlier = '';
    for (let attempt = 1; ; attempt++) {
      const left = this.deadline - Date.now();
      let problem: string;
      if (left <= 0) throw this.unavailable(method, path, `no time left${earlier}`);
      try {
        const { status, text } = await exchange(this.ipam.url + path, { method, headers, ...tls }, payload, left);
        const answer = { status, body: text ? parseJson(text) : null };
        if (status < 500) return answer;
        problem = `answered ${status} ${describe(answer.body)}`;
        if (!RETRIED_STATUS.has(status)) throw this.unavailable(method, path, problem);
      } catch (err) {
        if (err instanceof CniError) throw err;
        if (err instanceof TimeoutError) throw this.unavailable(method, path, `no answer within ${this.ipam.timeoutSeconds} s${earlier}`);
        if (isTlsFailure((err as { code?: string }).code)) throw this.tlsFailure(method, path, err as Error & { code: string });
        problem = `cannot be reached (${(err as { code?: string }).code ?? (err as Error).message})`;
      }
      this.log(`${method} ${path}: attempt ${attempt}: ${problem}; trying again`);
      earlier = ` (attempt ${attempt} ${problem})`;
      await sleep(Math.min(pause, Math.max(0, this.deadline - Date.now())));
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
      if (Date.now() >= this.deadline) throw this.unavailable(method, path, problem);
    }
  }

  /** A refusal by the API (any other 4xx than those the caller handles itself) as a CNI error. */
  refusal(method: string, path: string, answer: ApiAnswer): CniError {
    const { code, message } = (answer.body ?? {}) as { code?: unknown; message?: unknown };
    const apiCode = typeof code === 'string' ? code : `HTTP_${answer.status}`;
    const text = typeof message === 'string' ? message : describe(answer.body);
    return new CniError(CNI_CODES.API_REFUSED, `${apiCode}: ${text}`, `${method} ${this.ipam.url}${path} answered ${answer.status}`);
  }

  private unavailable(method: string, path: string, problem: string): CniError {
    return new CniError(
      CNI_CODES.TRY_AGAIN_LATER,
      `the ipledger API at ${this.ipam.url} is unavailable: ${problem}; try again later`,
      `${method} ${path}`,
    );
  }

  private tlsFailure(method: string, path: string, err: Error & { code: string }): CniError {
    const hint = this.ipam.caFile
      ? `is ${this.ipam.caFile} the CA that signed it, and ${this.ipam.tlsServerName ? `ipam.tlsServerName ${this.ipam.tlsServerName}` : 'ipam.url'} a name the certificate carries?`
      : 'set ipam.caFile to the CA that signed it';
    return new CniError(
      CNI_CODES.TLS_FAILURE,
      `TLS with the ipledger API at ${this.ipam.url} failed: ${err.code} (${err.message}); ${/ALERT/.test(err.code) ? 'it refused our certificate (ipam.certFile, ipam.keyFile)' : hint}`,
      `${method} ${path}`,
    );
  }

  /** Like the token file, read on every call: a rotated CA or client certificate needs no restart. */
  private tlsFiles(): TlsOptions {
    const read = (key: 'caFile' | 'certFile' | 'keyFile') => {
      const file = this.ipam[key];
      if (!file) return undefined;
      try {
        return readFileSync(file);
      } catch (err) {
        throw new CniError(CNI_CODES.INVALID_CONFIG, `ipam.${key} ${file} cannot be read: ${(err as Error).message}`);
      }
    };
    const [ca, cert, key] = [read('caFile'), read('certFile'), read('keyFile')];
    const servername = this.ipam.tlsServerName;
    return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(servername ? { servername } : {}) };
  }

  /** The token file is read on every call, so a rotated token needs no restart of anything. */
  private authorization(): Record<string, string> {
    if (!this.ipam.tokenFile) return {};
    let token: string;
    try {
      token = readFileSync(this.ipam.tokenFile, 'utf8').trim();
    } catch (err) {
      throw new CniError(CNI_CODES.INVALID_CONFIG, `ipam.tokenFile ${this.ipam.tokenFile} cannot be read: ${(err as Error).message}`);
    }
    if (!token) throw new CniError(CNI_CODES.INVALID_CONFIG, `ipam.tokenFile ${this.ipam.tokenFile} is empty`);
    return { authorization: `Bearer ${token}` };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(body: unknown): string {
  return (typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 200);
}
