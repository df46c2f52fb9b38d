import { RouteConfig } from '@nestjs/platform-fastify';
import { DEFAULT_CLUSTER } from '@ipledger/domain';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Role, TokenGrant } from '../config';
import type { TokenRegistry } from '../infrastructure/token-registry';
import { TokenReviewUnavailableError, type TokenReviewer } from '../infrastructure/token-reviewer';
import { bearerToken } from './bearer-token';
import { errorBody } from './error-response';
import type { ContextualRequest } from './request-context';

/** Who may run a route: the lowest role, or anyone. */
export type Access = Role | 'public';

/** What a route carries in its Fastify config: read from the route that matched, never from the URL's text. */
interface AccessConfig {
  access?: Access;
  /** a fleet-wide thing's write (pools): refused to a credential of one cluster, whatever its role */
  fleetWide?: true;
}

const RANK: Record<Role, number> = { reader: 0, allocator: 1, admin: 2 };

/** Declares a Nest handler's access in its Fastify route config (used by ApiRoute and ApiPublicRoute). */
export const DeclareAccess = (access: Access, fleetWide = false) =>
  RouteConfig({ access, ...(fleetWide ? { fleetWide } : {}) } satisfies AccessConfig);

/**
 * Routes that plugins register rather than Nest handlers: the web UI's page and assets
 * (@fastify/static) and Swagger UI with its document. Matched on the route's declared URL
 * pattern, at registration, so no spelling of a request's path can make another route public.
 */
const PUBLIC_PLUGIN_ROUTE = /^\/(?:ui|docs)(?:[/-]|$)/;

/** Fastify's onRoute hook: plugin routes under /ui and /docs are public; every other route keeps what it declared (or nothing). */
export function declarePluginAccess(route: RouteOptions): void {
  const config = (route.config ?? {}) as AccessConfig;
  if (config.access === undefined && PUBLIC_PLUGIN_ROUTE.test(route.url)) route.config = { ...config, access: 'public' };
}

const refuse = (reply: FastifyReply, status: 401 | 403, code: string, message: string) => {
  if (status === 401) void reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(status).send(errorBody(status, code, message));
};

/**
 * A static token's grant, else the grant the API server of the cluster the route names (its
 * `/v1/clusters/{cluster}` prefix, else the default cluster) vouches for (a JWT only); undefined for no credential.
 */
async function grantOf(req: FastifyRequest, tokens: TokenRegistry, reviewer: TokenReviewer): Promise<TokenGrant | undefined> {
  const token = bearerToken(req.raw.rawHeaders);
  if (token === null) return undefined;
  const named = (req.params as { cluster?: string } | undefined)?.cluster;
  return tokens.find(token) ?? (await reviewer.review(token, named ?? DEFAULT_CLUSTER)) ?? undefined;
}

/**
 * Fastify's onRequest hook, before the body is read: access is decided from the route the router
 * matched (its declared access), so a percent-encoded, doubled or dotted spelling of a path gets the
 * checks of the route it reaches. A route that declares no access is refused to everyone, with or
 * without tokens; a path that matches no route answers 404, as nothing runs. A token the API server
 * must review while it cannot answers 503 (the CNI plugin tries again), never lets the request in.
 */
export function authorize(tokens: TokenRegistry, reviewer: TokenReviewer) {
  const enabled = tokens.enabled || reviewer.enabled;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.is404) return;
    const req = request as ContextualRequest;
    const { access, fleetWide } = req.routeOptions.config as AccessConfig;
    if (access === undefined) {
      await refuse(reply, 403, 'FORBIDDEN', `${req.method} ${req.routeOptions.url} declares no access, so it is refused to everyone`);
      return;
    }
    if (access === 'public' || !enabled) return;
    let grant: TokenGrant | undefined;
    try {
      grant = await grantOf(req, tokens, reviewer);
    } catch (err) {
      if (!(err instanceof TokenReviewUnavailableError)) throw err;
      await reply
        .code(503)
        .header('Retry-After', '1')
        .send(errorBody(503, 'UNAVAILABLE', `${err.message}; retry later`));
      return;
    }
    if (!grant) {
      await refuse(reply, 401, 'UNAUTHENTICATED', 'one "Authorization: Bearer <token>" header with a valid token is required');
      return;
    }
    if (fleetWide && grant.cluster !== null) {
      await refuse(
        reply,
        403,
        'CLUSTER_FORBIDDEN',
        `a credential of cluster "${grant.cluster}" may not ${req.method} ${req.routeOptions.url}: pools are fleet-wide`,
      );
      return;
    }
    if (RANK[grant.role] < RANK[access]) {
      await refuse(reply, 403, 'FORBIDDEN', `role "${grant.role}" may not ${req.method} ${req.routeOptions.url}; it needs "${access}"`);
      return;
    }
    req.context.actor = grant.name;
    req.context.grant = grant;
  };
}
