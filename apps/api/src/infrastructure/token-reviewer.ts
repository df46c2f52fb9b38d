import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { validateDns1123Subdomain } from '@ipledger/domain';
import { HttpKubeClient } from '@ipledger/kube';
import type { Config, TokenGrant, TokenReviewConfig } from '../config';
import { Metrics } from '../metrics/metrics';
import { CONFIG } from './tokens';

/** The API server gave no verdict (unreachable, too slow, refused us): the request is answered 503, never let in. */
export class TokenReviewUnavailableError extends Error {
  override name = 'TokenReviewUnavailableError';
}

/** The parts of an authentication.k8s.io/v1 TokenReview's status read here. */
interface TokenReviewStatus {
  authenticated?: boolean;
  audiences?: string[];
  user?: { username?: string; extra?: Record<string, string[]> };
}

interface Verdict {
  grant: TokenGrant | null;
  /** ms since the epoch */
  until: number;
}

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
/** Where a pod-bound ServiceAccount token's node is (Kubernetes 1.30 and later). */
const NODE_NAME = 'authentication.kubernetes.io/node-name';
/** Verdicts kept at most (one a live node token, plus refusals); the oldest goes first. */
const MAX_VERDICTS = 10_000;
/** Reviews waiting for the API server at once; past it, 503: forged tokens cannot pile up requests to it without bound. */
const MAX_IN_FLIGHT = 64;
const REVIEW_TIMEOUT_MS = 5000;
const JWT = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+$/;

const digest = (token: string) => createHash('sha256').update(token).digest('base64');

/**
 * What a token says of itself, unverified: only to spare the API server tokens that cannot pass
 * (not a JWT, made for another audience, expired). `exp` bounds how long a verdict is kept.
 */
function selfDescribed(token: string, audience: string, now: number): { exp: number } | null {
  const payload = JWT.exec(token)?.[1];
  if (!payload) return null;
  let claims: { aud?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return null;
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Infinity;
  return audiences.includes(audience) && exp > now ? { exp } : null;
}

/**
 * Node credentials from a cluster's API server (IPAM_TOKEN_REVIEW=on): a JWT that no static token
 * matches is sent in a TokenReview to the API server of the cluster the request names (its route
 * prefix, else the default cluster); one the server authenticates for our audience, of an allowed
 * ServiceAccount (the CNI DaemonSet's) and bound to a pod on a node, is an allocator of that cluster
 * bound to that node. A cluster with no API server configured authenticates nothing. Verdicts,
 * refusals included, are kept per (cluster, token) for IPAM_TOKEN_REVIEW_CACHE_MS (never past the
 * token's expiry), so one cluster's verdict never lets a token into another and a revoked token
 * stops working within that time; one review runs per (cluster, token) at a time.
 */
@Injectable()
export class TokenReviewer implements OnModuleDestroy {
  private readonly logger = new Logger('token-review');
  private readonly settings: TokenReviewConfig | null;
  private readonly clients: Map<string, HttpKubeClient>;
  private readonly verdicts = new Map<string, Verdict>();
  private readonly pending = new Map<string, Promise<Verdict>>();

  constructor(
    @Inject(CONFIG) config: Config,
    private readonly metrics: Metrics,
  ) {
    this.settings = config.tokenReview;
    this.clients = new Map(
      [...(this.settings?.connections ?? [])].map(([cluster, connection]) => [cluster, new HttpKubeClient(connection)]),
    );
  }

  get enabled(): boolean {
    return this.settings !== null;
  }

  /**
   * The grant, in `cluster`, of a token that cluster's API server vouches for; null for any other (and
   * in a cluster with no API server configured). Throws TokenReviewUnavailableError without a verdict.
   */
  async review(token: string, cluster: string): Promise<TokenGrant | null> {
    const now = Date.now();
    const client = this.clients.get(cluster);
    const described = client && selfDescribed(token, this.settings!.audience, now);
    if (!described) return null;
    // the cluster leads the key: a verdict is one cluster's, never another's
    const key = `${cluster} ${digest(token)}`;
    const kept = this.verdicts.get(key);
    if (kept && kept.until > now) return kept.grant;
    let pending = this.pending.get(key);
    if (!pending) {
      if (this.pending.size >= MAX_IN_FLIGHT) throw new TokenReviewUnavailableError(`${MAX_IN_FLIGHT} token reviews are already waiting`);
      pending = this.ask(client, cluster, token, described.exp).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    const verdict = await pending;
    this.keep(key, verdict);
    return verdict.grant;
  }

  onModuleDestroy(): void {
    for (const client of this.clients.values()) client.close();
  }

  private async ask(client: HttpKubeClient, cluster: string, token: string, exp: number): Promise<Verdict> {
    const { audience, cacheMs } = this.settings!;
    let status: TokenReviewStatus;
    try {
      const review = await client.create<{ status?: TokenReviewStatus }>(
        TOKEN_REVIEWS,
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: [audience] } },
        REVIEW_TIMEOUT_MS,
      );
      status = review.status ?? {};
    } catch (err) {
      this.metrics.tokenReviews.inc({ outcome: 'failed', cluster });
      // the error names the request and the server's answer, never the token
      this.logger.warn(`no verdict from cluster ${cluster}'s Kubernetes API server: ${(err as Error).message}`);
      throw new TokenReviewUnavailableError(`cluster ${cluster}'s Kubernetes API server could not review the token`);
    }
    const grant = this.grantOf(status, cluster);
    this.metrics.tokenReviews.inc({ outcome: grant ? 'node' : 'refused', cluster });
    return { grant, until: Math.min(Date.now() + cacheMs, exp) };
  }

  /** The node credential a review vouches for, or null, logging why an authenticated token is not one. */
  private grantOf(status: TokenReviewStatus, cluster: string): TokenGrant | null {
    const { audience, serviceAccounts } = this.settings!;
    if (status.authenticated !== true) return null;
    const username = status.user?.username ?? '';
    // a server that ignores spec.audiences answers none: its verdict holds for its own audience, not ours
    if (!status.audiences?.includes(audience)) return this.unfit(`${username}: the API server did not confirm the audience ${audience}`);
    if (!serviceAccounts.includes(username)) return this.unfit(`${username} is not one of IPAM_TOKEN_REVIEW_SERVICE_ACCOUNTS`);
    const nodes = status.user?.extra?.[NODE_NAME] ?? [];
    const node = nodes.length === 1 ? nodes[0] : '';
    try {
      validateDns1123Subdomain(node, 'node');
    } catch {
      return this.unfit(
        `${username}: the token is bound to no node (a pod's projected token on Kubernetes 1.30 or later has ${NODE_NAME})`,
      );
    }
    return { role: 'allocator', name: `${username}@${node}`, cluster, node };
  }

  private unfit(why: string): null {
    this.logger.warn(`refused an authenticated token: ${why}`);
    return null;
  }

  private keep(key: string, verdict: Verdict): void {
    this.verdicts.delete(key);
    if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
    this.verdicts.set(key, verdict);
  }
}
