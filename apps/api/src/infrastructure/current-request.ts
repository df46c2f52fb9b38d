import { AsyncLocalStorage } from 'node:async_hooks';
import type { TokenGrant } from '../config';

export interface RequestContext {
  requestId: string;
  actor: string;
  /** what the request's credential may do; null with access checks off, and on a public route */
  grant: TokenGrant | null;
  /** fires when the client goes away before the answer, or the request runs past its deadline */
  signal: AbortSignal;
}

/**
 * The request being served, for code far below its handler: log lines (request id, actor) and the
 * pg pool, which cancels the request's running query when its signal fires. Here rather than in
 * http/ so that infrastructure reads it without depending on the HTTP layer, which sets it.
 */
const current = new AsyncLocalStorage<RequestContext>();
export const currentRequestContext = (): RequestContext | undefined => current.getStore();

/** Runs `work` as part of the request `context` (the HTTP layer's hooks call it). */
export const withinRequest = <T>(context: RequestContext, work: () => T): T => current.run(context, work);

/** Runs `work` outside any request: for work shared by many (a batch), which no one request may cancel or name. */
export const outsideRequest = <T>(work: () => T): T => current.exit(work);
