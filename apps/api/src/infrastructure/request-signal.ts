import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The abort signal of the HTTP request being served, for code far below the controller (the pg
 * pool): it fires when the client goes away or the request times out.
 */
export const requestSignal = new AsyncLocalStorage<AbortSignal>();
