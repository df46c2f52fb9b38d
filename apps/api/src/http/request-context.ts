import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { CommandMetadata } from '@ipledger/domain';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestContext {
  requestId: string;
  actor: string;
}

export type ContextualRequest = FastifyRequest & { context: RequestContext };

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The request being served, for log lines written deep below its handler. */
const current = new AsyncLocalStorage<RequestContext>();
export const currentRequestContext = (): RequestContext | undefined => current.getStore();

/** Every request gets a correlation id (the caller's X-Request-Id when sane), echoed back. */
export function requestContext(req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  (req as ContextualRequest).context = { requestId, actor: 'anonymous' };
  void reply.header('X-Request-Id', requestId);
  current.run((req as ContextualRequest).context, done);
}

/** Reading the body runs in the socket's async context: enter the request's again before the handler. */
export function resumeRequestContext(req: FastifyRequest, _: FastifyReply, done: HookHandlerDoneFunction): void {
  current.run((req as ContextualRequest).context, done);
}

/** The audit metadata for commands dispatched by this request. */
export const Metadata = createParamDecorator((_: unknown, ctx: ExecutionContext): CommandMetadata => {
  const { context } = ctx.switchToHttp().getRequest<ContextualRequest>();
  // the request is both the conversation (correlation) and the direct cause of its commands' events
  return { actor: context.actor, source: 'rest', correlationId: context.requestId, causationId: context.requestId };
});
