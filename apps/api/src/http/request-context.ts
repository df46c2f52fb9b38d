import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { CommandMetadata } from '@ipledger/domain';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';

export interface RequestContext {
  requestId: string;
  actor: string;
}

export type ContextualRequest = Request & { context: RequestContext };

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Every request gets a correlation id (the caller's X-Request-Id when sane), echoed back. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const given = req.header('x-request-id');
  const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
  (req as ContextualRequest).context = { requestId, actor: 'anonymous' };
  res.setHeader('X-Request-Id', requestId);
  next();
}

/** The audit metadata for commands dispatched by this request. */
export const Metadata = createParamDecorator((_: unknown, ctx: ExecutionContext): CommandMetadata => {
  const { context } = ctx.switchToHttp().getRequest<ContextualRequest>();
  return { actor: context.actor, source: 'rest', correlationId: context.requestId };
});
