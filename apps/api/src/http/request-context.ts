import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { actingCluster, type CommandMetadata, type NodeRestriction } from '@ipledger/domain';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { randomUUID } from 'node:crypto';
import { withinRequest, type RequestContext } from '../infrastructure/current-request';

export type ContextualRequest = FastifyRequest & { context: RequestContext };

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Every request gets a correlation id (the caller's X-Request-Id when sane), echoed back, and its
 * abort signal (`signalFor`). A Fastify hook rather than a Nest interceptor: with no interceptor
 * Nest builds no RxJS pipeline and binds no async resource per request, which the allocation hot
 * path measured.
 */
export function requestContext(
  signalFor: (reply: FastifyReply) => AbortSignal,
): (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (req, reply, done) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    const context = { requestId, actor: 'anonymous', grant: null } as RequestContext;
    (req as ContextualRequest).context = context;
    void reply.header('X-Request-Id', requestId);
    withinRequest(context, () => {
      // inside the request's context, so that what its deadline logs names the request
      context.signal = signalFor(reply);
      done();
    });
  };
}

/** Reading the body runs in the socket's async context: enter the request's again before the handler. */
export function resumeRequestContext(req: FastifyRequest, _: FastifyReply, done: HookHandlerDoneFunction): void {
  withinRequest((req as ContextualRequest).context, done);
}

/** The audit metadata for commands dispatched by this request. */
export const Metadata = createParamDecorator((_: unknown, ctx: ExecutionContext): CommandMetadata => {
  const { context } = ctx.switchToHttp().getRequest<ContextualRequest>();
  // the request is both the conversation (correlation) and the direct cause of its commands' events
  return { actor: context.actor, source: 'rest', correlationId: context.requestId, causationId: context.requestId };
});

/** The node the request's credential is bound to, from the credential alone (never from a name in the body); null when bound to none. */
export const Restriction = createParamDecorator((_: unknown, ctx: ExecutionContext): NodeRestriction | null => {
  const { grant } = ctx.switchToHttp().getRequest<ContextualRequest>().context;
  return grant?.node ? { node: grant.node } : null;
});

/** The cluster of the request's credential; null: fleet-wide (or no credential). */
export const CredentialCluster = createParamDecorator((_: unknown, ctx: ExecutionContext): string | null => {
  return ctx.switchToHttp().getRequest<ContextualRequest>().context.grant?.cluster ?? null;
});

/** The cluster a route acts in (actingCluster): its `/v1/clusters/{cluster}` prefix, else the credential's, else default. */
export const RouteCluster = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const req = ctx.switchToHttp().getRequest<ContextualRequest>();
  return actingCluster(req.context.grant?.cluster ?? null, (req.params as { cluster?: string }).cluster);
});
