/** A request that ran past IPAM_REQUEST_TIMEOUT_MS: answered 503 UNAVAILABLE, its query cancelled. */
export class RequestTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`the request did not finish within ${ms} ms; retry later`);
    this.name = 'RequestTimeoutError';
  }
}
