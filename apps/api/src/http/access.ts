import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Role } from '../config';
import type { TokenRegistry } from '../infrastructure/token-registry';
import { errorBody } from './error-response';
import type { ContextualRequest } from './request-context';

/** Who may run a route: the lowest role, or anyone. */
export type Access = Role | 'public';

/** What a route carries in its Fastify config: read from the route that matched, never from the URL's text. */
interface AccessConfig {
  access?: Access;
}

const RANK: Record<Role, number> = { reader: 0, allocator: 1, admin: 2 };

/** Declares a Nest handler's access in its Fastify route config (used by ApiRoute and ApiPublicRoute). */
export const DeclareAccess = (access: Access) => RouteConfig({ access } satisfies AccessConfig);

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
 * Fastify's onRequest hook, before the body is read: access is decided from the route the router
 * matched (its declared access), so a percent-encoded, doubled or dotted spelling of a path gets the
 * checks of the route it reaches. A route that declares no access is refused to everyone, with or
 * without tokens; a path that matches no route answers 404, as nothing runs.
 */
export function authorize(tokens: TokenRegistry) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.is404) return;
    const req = request as ContextualRequest;
    const { access } = req.routeOptions.config as AccessConfig;
    if (access === undefined) {
      await refuse(reply, 403, 'FORBIDDEN', `${req.method} ${req.routeOptions.url} declares no access, so it is refused to everyone`);
      return;
    }
    if (access === 'public' || !tokens.enabled) return;
    const [scheme, token] = (req.headers.authorization ?? '').split(' ');
    const grant = scheme === 'Bearer' && token ? tokens.find(token) : undefined;
    if (!grant) {
      await refuse(reply, 401, 'UNAUTHENTICATED', 'a valid "Authorization: Bearer <token>" header is required');
      return;
    }
    if (RANK[grant.role] < RANK[access]) {
      await refuse(reply, 403, 'FORBIDDEN', `role "${grant.role}" may not ${req.method} ${req.routeOptions.url}; it needs "${access}"`);
      return;
    }
    req.context.actor = grant.name;
  };
}
