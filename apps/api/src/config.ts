import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { DEFAULT_CLUSTER, validateClusterName, validateDns1123Subdomain } from '@ipledger/domain';
import { formatConnectionString, parseConnectionString } from '@ipledger/event-store';
import { loadKubeConnection, type KubeConnection } from '@ipledger/kube';
import {
  natsSecurity,
  natsUrl,
  streamMaxAgeSeconds,
  streamNames,
  streamReplicas,
  type NatsSecurity,
  type StreamNames,
} from '@ipledger/messaging';
import { wholeNumber } from '@ipledger/runtime';
import { DEFAULT_DATA_DIR, DEFAULT_EMBEDDED_PORT } from './embedded-database';
import { isBearerToken } from './http/bearer-token';

export type Role = 'reader' | 'allocator' | 'admin';

export interface TokenGrant {
  role: Role;
  /** the actor recorded in event metadata: never the token itself */
  name: string;
  /** the cluster it acts in, and only there (API.md "Clusters"); null: fleet-wide */
  cluster: string | null;
  /** an allocator bound to a node acts for that node's pods only (NodeRestriction in libs/domain); null: bound to none */
  node: string | null;
}

/** IPAM_TOKEN_REVIEW=on: the CNI DaemonSet's projected ServiceAccount tokens, reviewed by the cluster's API server. */
export interface TokenReviewConfig {
  /**
   * each cluster's API server, which alone reviews that cluster's tokens: `default` is KUBECONFIG's,
   * else the in-cluster service account; the others are IPAM_TOKEN_REVIEW_CLUSTERS' kubeconfig files
   */
  connections: Map<string, KubeConnection>;
  /** IPAM_TOKEN_REVIEW_AUDIENCE: the audience the tokens must be made for */
  audience: string;
  /** IPAM_TOKEN_REVIEW_SERVICE_ACCOUNTS: the usernames (system:serviceaccount:<namespace>:<name>) whose tokens are node credentials */
  serviceAccounts: string[];
  /** IPAM_TOKEN_REVIEW_CACHE_MS: how long a verdict is kept; a revoked token stops working within it */
  cacheMs: number;
}

export interface Config {
  port: number;
  /** with no tokens the API is open, so it binds loopback only (any other address needs IPAM_AUTH=off) */
  host: string;
  /** IPAM_AUTH: "off" lets the API serve without tokens on a non-loopback address */
  auth: 'on' | 'off';
  databaseUrl: string;
  /** the schema owner's URL for migrations (and the operator CLI): IPAM_MIGRATIONS_DATABASE_URL, else DATABASE_URL */
  migrationsDatabaseUrl: string;
  /** IPAM_MIGRATE: apply pending migrations at start (on, the default), or leave them to `ipledger migrate` (off) */
  migrate: boolean;
  natsUrl: string;
  /** IPAM_NATS_CA_FILE, IPAM_NATS_CERT_FILE, IPAM_NATS_KEY_FILE (or a tls:// URL), IPAM_NATS_CREDS_FILE */
  natsSecurity: NatsSecurity;
  /** from IPAM_TOKENS; empty with IPAM_TOKENS_FILE */
  tokens: Map<string, TokenGrant>;
  /** IPAM_TOKENS_FILE: the same entries, one a line or comma-separated, re-read when the file changes */
  tokensFile: string | null;
  /** null unless IPAM_TOKEN_REVIEW=on */
  tokenReview: TokenReviewConfig | null;
  defaultMatchLabel: string | null;
  /** PostgreSQL statement_timeout of the API's sessions; 0 = none */
  statementTimeoutMs: number;
  /** a request not answered within this is answered 503 and its query cancelled; 0 = none */
  requestTimeoutMs: number;
  /** null when the consumer is off (the default without NATS_URL): the API then serves REST only */
  kubernetes: KubernetesConsumerConfig | null;
  /** IPAM_REQUIRE_SYNC_REPLICATION: not ready while the database server has no synchronous standby */
  requireSyncReplication: boolean;
  /** the API runs its own PostgreSQL (no DATABASE_URL): a try on one machine, where no standby is expected (main.ts sets it) */
  embeddedDatabase: boolean;
  /** the aggregate cache's memory bound, in bytes (estimated from the states' address runs and holders) */
  aggregateCacheBytes: number;
  /** IPAM_REPLAY_CONCURRENCY: `?at=` replays this replica runs at once */
  replayConcurrency: number;
  /** IPAM_REPLAY_QUEUE: `?at=` replays waiting for one of those; past them a read answers 503 with Retry-After */
  replayQueue: number;
  /** how often the background sealer extends the audit chain over newly committed events */
  auditSealIntervalMs: number;
  /** how often the API looks for empty blocks whose blockReleaseSeconds have passed */
  blockSweepIntervalMs: number;
  /** IPAM_METRICS_POOLS: per-pool gauges for every pool, the n fullest, or none */
  metricsPools: 'all' | 'off' | number;
  /** HTTPS instead of HTTP: IPAM_TLS_CERT_FILE and IPAM_TLS_KEY_FILE (re-read when they change), null without them */
  tls: TlsFiles | null;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** IPAM_TLS_CLIENT_CA_FILE: a client must present a certificate this CA signed */
  clientCaFile: string | null;
}

export interface KubernetesConsumerConfig {
  names: StreamNames;
  durable: string;
  concurrency: number;
  leakGraceSeconds: number;
  /** deliveries of a message failing for a reason other than a refusal before it is parked */
  maxAttempts: number;
  /** a deleted pod's addresses held for its node not Ready are released this long after the node was last Ready */
  unreachableNodeGraceSeconds: number;
  /** IPAM_NATS_REPLICAS: the stream's copies when the API creates it */
  streamReplicas: number;
  /** IPAM_NATS_MAX_AGE_SECONDS: the stream's retention when the API creates it, as the watcher reads it */
  streamMaxAgeSeconds: number;
  /** IPAM_IPPOOL_STATUS_INTERVAL_MS: how often the IPPools' status is read and, where changed, published for the watcher */
  ipPoolStatusIntervalMs: number;
  /** IPAM_POD_WAIT_MS: how long an allocation for a pod the watcher has not sent yet waits for it (its annotations may choose the pool) */
  podWaitMs: number;
}

const ROLES: readonly Role[] = ['reader', 'allocator', 'admin'];

const ENTRY_FORMAT = 'token:role[:name[:cluster[:node]]]';

/**
 * One entry, or an Error saying where it is (`where`) and what is wrong with it, never any of its
 * text: a malformed entry may hold a token anywhere. A node makes sense in a cluster only, so an
 * entry naming a node without a cluster is of the cluster "default".
 */
function parseEntry(entry: string, where: string): [string, TokenGrant] {
  const fields = entry.split(':');
  const [token, role, name, cluster, node] = fields;
  const refuse = (what: string) => new Error(`${where} ${what} (an entry is ${ENTRY_FORMAT})`);
  if (fields.length > 5) throw refuse(`has ${fields.length} fields, more than 5`);
  if (!isBearerToken(token))
    throw refuse(
      'has a token (field 1) that is empty or holds a character a bearer token may not (RFC 6750: letters, digits, - . _ ~ + /, then = at its end)',
    );
  if (!ROLES.includes(role as Role)) throw refuse(`has no role (field 2) of ${ROLES.join(', ')}`);
  if (cluster) {
    try {
      validateClusterName(cluster);
    } catch {
      throw refuse('has a cluster (field 4) that is not a cluster name (a DNS-1123 label)');
    }
  }
  if (node) {
    if (role !== 'allocator') throw refuse(`binds a ${role} to a node (field 5): only an allocator may be bound to a node`);
    try {
      validateDns1123Subdomain(node, 'node');
    } catch {
      throw refuse('has a node (field 5) that is not a Kubernetes node name (a DNS-1123 subdomain)');
    }
  }
  const grant: TokenGrant = {
    role: role as Role,
    name: name || `${role}-${randomBytes(4).toString('hex')}`,
    cluster: cluster || (node ? 'default' : null),
    node: node || null,
  };
  return [token, grant];
}

/**
 * `token:role[:name[:cluster[:node]]],...` (commas or new lines; `#` starts a comment line); the
 * name defaults to the role and a random id drawn at load time: nothing derived from the token
 * reaches the event log. A malformed entry is named by its position among the entries (and its
 * line, in a text of several), never by its text.
 */
export function parseTokens(text: string | undefined, source = 'IPAM_TOKENS'): Map<string, TokenGrant> {
  const tokens = new Map<string, TokenGrant>();
  const lines = (text ?? '').split('\n');
  let position = 0;
  lines.forEach((line, index) => {
    for (const entry of line
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s && !s.startsWith('#'))) {
      const where = `${source} entry ${++position}${lines.length > 1 ? ` (line ${index + 1})` : ''}`;
      const [token, grant] = parseEntry(entry, where);
      if (tokens.has(token)) throw new Error(`${where} repeats the token of an earlier entry: each token has one role`);
      tokens.set(token, grant);
    }
  });
  return tokens;
}

const SERVICE_ACCOUNT_USER = /^system:serviceaccount:[a-z0-9]([-a-z0-9]*[a-z0-9])?:[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

/** Member clusters whose API servers IPAM_TOKEN_REVIEW_CLUSTERS names; at most this many. */
const MAX_REVIEW_CLUSTERS = 100;

/**
 * IPAM_TOKEN_REVIEW_CLUSTERS, `cluster=kubeconfig,...`: each member cluster's API server (its URL,
 * CA and our credential there, from the kubeconfig file) reviews that cluster's CNI tokens. The
 * default cluster's is KUBECONFIG's (or in-cluster) as with one cluster, so it is not named here.
 */
function reviewClusterConnections(env: NodeJS.ProcessEnv): [string, KubeConnection][] {
  const entries = (env.IPAM_TOKEN_REVIEW_CLUSTERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length > MAX_REVIEW_CLUSTERS) throw new Error(`IPAM_TOKEN_REVIEW_CLUSTERS names more than ${MAX_REVIEW_CLUSTERS} clusters`);
  const seen = new Set<string>();
  return entries.map((entry) => {
    const at = entry.indexOf('=');
    const cluster = entry.slice(0, Math.max(at, 0)).trim();
    const kubeconfig = entry.slice(at + 1).trim();
    if (at < 0 || !kubeconfig) throw new Error(`IPAM_TOKEN_REVIEW_CLUSTERS entry "${entry}" must be <cluster>=<kubeconfig file>`);
    try {
      validateClusterName(cluster);
    } catch (err) {
      throw new Error(`IPAM_TOKEN_REVIEW_CLUSTERS entry "${entry}": ${(err as Error).message}`, { cause: err });
    }
    if (cluster === DEFAULT_CLUSTER)
      throw new Error("IPAM_TOKEN_REVIEW_CLUSTERS names the default cluster: its API server is KUBECONFIG's (else in-cluster)");
    if (seen.has(cluster)) throw new Error(`IPAM_TOKEN_REVIEW_CLUSTERS names cluster "${cluster}" twice`);
    seen.add(cluster);
    try {
      return [cluster, loadKubeConnection({ env: { ...env, KUBECONFIG: kubeconfig } })];
    } catch (err) {
      throw new Error(`IPAM_TOKEN_REVIEW_CLUSTERS cluster "${cluster}": ${(err as Error).message}`, { cause: err });
    }
  });
}

/** IPAM_TOKEN_REVIEW and its settings; the default cluster's API server is reached as the watcher reaches it (KUBECONFIG, else in-cluster). */
function tokenReviewConfig(env: NodeJS.ProcessEnv): TokenReviewConfig | null {
  const mode = env.IPAM_TOKEN_REVIEW || 'off';
  if (mode !== 'on' && mode !== 'off') throw new Error(`IPAM_TOKEN_REVIEW "${mode}" must be on or off`);
  if (mode === 'off') {
    if (env.IPAM_TOKEN_REVIEW_CLUSTERS) throw new Error('IPAM_TOKEN_REVIEW_CLUSTERS needs IPAM_TOKEN_REVIEW=on');
    return null;
  }
  const serviceAccounts = (env.IPAM_TOKEN_REVIEW_SERVICE_ACCOUNTS || 'system:serviceaccount:ipledger:ipledger-cni')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const account of serviceAccounts) {
    if (!SERVICE_ACCOUNT_USER.test(account))
      throw new Error(`IPAM_TOKEN_REVIEW_SERVICE_ACCOUNTS "${account}" must be system:serviceaccount:<namespace>:<name>`);
  }
  const audience = env.IPAM_TOKEN_REVIEW_AUDIENCE || 'ipledger';
  return {
    connections: new Map([[DEFAULT_CLUSTER, loadKubeConnection({ env })], ...reviewClusterConnections(env)]),
    audience,
    serviceAccounts,
    cacheMs: wholeNumber(env, 'IPAM_TOKEN_REVIEW_CACHE_MS', 10_000, { min: 0, max: 300_000 }),
  };
}

/**
 * The URL read as libpq reads it (host lists, target_session_attrs, sslmode...), refused at start
 * when malformed; like libpq, one without a user name connects as PGUSER or the operating-system user.
 */
export function withDefaultUser(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  return formatConnectionString(parseConnectionString(databaseUrl, env));
}

function kubernetesConfig(env: NodeJS.ProcessEnv): KubernetesConsumerConfig | null {
  // a newcomer's `npm start` has no bus: the consumer comes on with one
  const mode = env.IPAM_KUBERNETES_CONSUMER || (env.NATS_URL ? 'on' : 'off');
  if (mode !== 'on' && mode !== 'off') throw new Error(`IPAM_KUBERNETES_CONSUMER "${mode}" must be on or off`);
  if (mode === 'off') return null;
  return {
    names: streamNames(env),
    durable: env.IPAM_NATS_DURABLE || 'ipledger-api',
    concurrency: wholeNumber(env, 'IPAM_KUBERNETES_CONCURRENCY', 16, { min: 1 }),
    leakGraceSeconds: wholeNumber(env, 'IPAM_LEAK_GRACE_SECONDS', 300),
    streamReplicas: streamReplicas(env),
    streamMaxAgeSeconds: streamMaxAgeSeconds(env),
    ipPoolStatusIntervalMs: wholeNumber(env, 'IPAM_IPPOOL_STATUS_INTERVAL_MS', 2000, { min: 100 }),
    podWaitMs: wholeNumber(env, 'IPAM_POD_WAIT_MS', 3000, { max: 60_000 }),
    maxAttempts: wholeNumber(env, 'IPAM_KUBERNETES_MAX_ATTEMPTS', 10, { min: 1 }),
    unreachableNodeGraceSeconds: wholeNumber(env, 'IPAM_UNREACHABLE_NODE_GRACE_SECONDS', 600),
  };
}

/** off: a separate step (a Kubernetes Job running `ipledger migrate` as the schema owner) migrates; the API only checks. */
function migrateAtStart(env: NodeJS.ProcessEnv): boolean {
  const mode = env.IPAM_MIGRATE || 'on';
  if (mode !== 'on' && mode !== 'off') throw new Error(`IPAM_MIGRATE "${mode}" must be on or off`);
  return mode === 'on';
}

export interface EmbeddedDatabaseConfig {
  dataDir: string;
  port: number;
}

/**
 * Without DATABASE_URL the API runs a PostgreSQL of its own (IPAM_DATA_DIR, IPAM_EMBEDDED_POSTGRES_PORT); null with it,
 * or with IPAM_MIGRATIONS_DATABASE_URL alone (the migrations Job: the schema owner's server, nothing to embed).
 */
export function embeddedDatabaseConfig(env: NodeJS.ProcessEnv = process.env): EmbeddedDatabaseConfig | null {
  if (env.DATABASE_URL || env.IPAM_MIGRATIONS_DATABASE_URL) return null;
  const port = Number(env.IPAM_EMBEDDED_POSTGRES_PORT || DEFAULT_EMBEDDED_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`IPAM_EMBEDDED_POSTGRES_PORT "${env.IPAM_EMBEDDED_POSTGRES_PORT}" is not a port number`);
  return { dataDir: env.IPAM_DATA_DIR || DEFAULT_DATA_DIR, port };
}

function metricsPools(value: string | undefined): 'all' | 'off' | number {
  if (!value || value === 'all' || value === 'off') return value === 'off' ? 'off' : 'all';
  const top = /^top:([1-9]\d{0,6})$/.exec(value);
  if (!top) throw new Error(`IPAM_METRICS_POOLS "${value}" must be all, off or top:<n> (n from 1 to 9999999)`);
  return Number(top[1]);
}

function tlsFiles(env: NodeJS.ProcessEnv): TlsFiles | null {
  const certFile = env.IPAM_TLS_CERT_FILE || null;
  const keyFile = env.IPAM_TLS_KEY_FILE || null;
  const clientCaFile = env.IPAM_TLS_CLIENT_CA_FILE || null;
  if (!certFile !== !keyFile) throw new Error('IPAM_TLS_CERT_FILE and IPAM_TLS_KEY_FILE go together: set both or neither');
  if (clientCaFile && !certFile) throw new Error('IPAM_TLS_CLIENT_CA_FILE needs IPAM_TLS_CERT_FILE and IPAM_TLS_KEY_FILE (HTTPS)');
  return certFile && keyFile ? { certFile, keyFile, clientCaFile } : null;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = env[name] || 'false';
  if (value !== 'true' && value !== 'false') throw new Error(`${name} "${value}" must be true or false`);
  return value === 'true';
}

/** 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and localhost: addresses only this machine reaches. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const address = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isIP(address) === 6) return address === '::1' || /^::ffff:127\./.test(address);
  return isIP(address) === 4 && address.startsWith('127.');
}

/** Where the API listens and who may use it: fails closed, refusing to serve openly beyond loopback unless IPAM_AUTH=off. */
export function accessConfig(env: NodeJS.ProcessEnv): Pick<Config, 'port' | 'host' | 'auth' | 'tokens' | 'tokensFile' | 'tokenReview'> {
  const tokens = parseTokens(env.IPAM_TOKENS);
  const tokensFile = env.IPAM_TOKENS_FILE || null;
  if (tokensFile && tokens.size) throw new Error('set IPAM_TOKENS or IPAM_TOKENS_FILE, not both');
  const tokenReview = tokenReviewConfig(env);
  const auth = env.IPAM_AUTH || 'on';
  if (auth !== 'on' && auth !== 'off') throw new Error(`IPAM_AUTH "${auth}" must be on or off`);
  const open = !tokens.size && !tokensFile && !tokenReview;
  if (auth === 'off' && !open)
    throw new Error('IPAM_AUTH=off turns access checks off: unset IPAM_TOKENS, IPAM_TOKENS_FILE and IPAM_TOKEN_REVIEW, or IPAM_AUTH');
  // an empty PORT is a mistake, not 0: Number('') is 0, which would listen on a random port
  const portText = env.PORT ?? '8080';
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65535) throw new Error(`PORT "${portText}" is not a port number (0 to 65535)`);
  const host = env.HOST ?? (open ? '127.0.0.1' : '0.0.0.0');
  if (open && auth === 'on' && !isLoopback(host)) {
    throw new Error(
      `refusing to listen on ${host || 'every address'}:${port} with no tokens, which would let anyone who reaches it change everything: ` +
        'set IPAM_TOKENS or IPAM_TOKENS_FILE, or IPAM_AUTH=off to serve without access checks',
    );
  }
  return { port, host, auth, tokens, tokensFile, tokenReview };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = withDefaultUser(env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/ipledger', env);
  return {
    ...accessConfig(env),
    databaseUrl,
    migrationsDatabaseUrl: env.IPAM_MIGRATIONS_DATABASE_URL ? withDefaultUser(env.IPAM_MIGRATIONS_DATABASE_URL, env) : databaseUrl,
    migrate: migrateAtStart(env),
    natsUrl: natsUrl(env),
    natsSecurity: natsSecurity(env, natsUrl(env)),
    defaultMatchLabel: env.IPAM_DEFAULT_MATCH_LABEL || null,
    statementTimeoutMs: wholeNumber(env, 'IPAM_STATEMENT_TIMEOUT_MS', 10_000),
    requestTimeoutMs: wholeNumber(env, 'IPAM_REQUEST_TIMEOUT_MS', 30_000),
    kubernetes: kubernetesConfig(env),
    requireSyncReplication: flag(env, 'IPAM_REQUIRE_SYNC_REPLICATION'),
    embeddedDatabase: false,
    aggregateCacheBytes: wholeNumber(env, 'IPAM_AGGREGATE_CACHE_MB', 160, { min: 1 }) * 1024 * 1024,
    replayConcurrency: wholeNumber(env, 'IPAM_REPLAY_CONCURRENCY', 2, { min: 1, max: 64 }),
    replayQueue: wholeNumber(env, 'IPAM_REPLAY_QUEUE', 8, { max: 1000 }),
    metricsPools: metricsPools(env.IPAM_METRICS_POOLS),
    auditSealIntervalMs: wholeNumber(env, 'IPAM_AUDIT_SEAL_INTERVAL_MS', 1000, { min: 10, max: 60_000 }),
    blockSweepIntervalMs: wholeNumber(env, 'IPAM_BLOCK_SWEEP_INTERVAL_MS', 5000, { min: 10, max: 600_000 }),
    tls: tlsFiles(env),
  };
}
