import { createParamDecorator, ForbiddenException, type ExecutionContext } from '@nestjs/common';
import type { TokenGrant } from '../config';
import type { ContextualRequest } from '../http/request-context';

/** The credential the request came with (null: none, tokens off). */
export const Grant = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): TokenGrant | null => ctx.switchToHttp().getRequest<ContextualRequest>().context.grant,
);

/**
 * The cluster a request acts in: the caller's credential decides it, never the body alone. A token
 * scoped to a cluster may name only that one (403 CLUSTER_FORBIDDEN); a fleet-wide token (or none,
 * with tokens off) acts in the cluster the body names. The one place this is decided for
 * /external-ipam: per-cluster tokens need no other change here.
 */
export function callerCluster(grant: TokenGrant | null, named: string): string {
  if (grant?.cluster && grant.cluster !== named) {
    throw new ForbiddenException({
      code: 'CLUSTER_FORBIDDEN',
      message: `this token acts in cluster "${grant.cluster}" only; the request names cluster "${named}"`,
    });
  }
  return named;
}
