import { ForbiddenException, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Role } from '../config';
import { TokenRegistry } from '../infrastructure/token-registry';
import type { ContextualRequest } from './request-context';

const RANK: Record<Role, number> = { reader: 0, allocator: 1, admin: 2 };

/** reader may GET; allocator may also write allocations; admin may do everything. */
function requiredRole(method: string, path: string): Role {
  if (method === 'GET' || method === 'HEAD') return 'reader';
  if (path === '/v1/allocations' || path.startsWith('/v1/allocations/')) return 'allocator';
  return 'admin';
}

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly tokens: TokenRegistry) {}

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<ContextualRequest>();
    const path = req.url.split('?')[0];
    if (!this.tokens.enabled || !path.startsWith('/v1')) return true;
    const [scheme, token] = (req.headers.authorization ?? '').split(' ');
    const grant = scheme === 'Bearer' && token ? this.tokens.find(token) : undefined;
    if (!grant)
      throw new UnauthorizedException({ code: 'UNAUTHENTICATED', message: 'a valid "Authorization: Bearer <token>" header is required' });
    const needed = requiredRole(req.method, path);
    if (RANK[grant.role] < RANK[needed]) {
      throw new ForbiddenException({
        code: 'FORBIDDEN',
        message: `role "${grant.role}" may not ${req.method} ${path}; it needs "${needed}"`,
      });
    }
    req.context.actor = grant.name;
    return true;
  }
}
