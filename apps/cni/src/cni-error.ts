/** Error codes of the CNI specification, and this plugin's own (100 and up). */
export const CNI_CODES = {
  INCOMPATIBLE_VERSION: 1,
  BAD_ENVIRONMENT: 4,
  DECODE_FAILURE: 6,
  INVALID_CONFIG: 7,
  TRY_AGAIN_LATER: 11,
  /** STATUS (1.1.0): the plugin cannot serve ADD now */
  NOT_AVAILABLE: 50,
  /** the API refused the request; `msg` starts with the API's own error code */
  API_REFUSED: 100,
  /** CHECK: the handle does not hold exactly the addresses of prevResult */
  CHECK_MISMATCH: 101,
  /** the TLS handshake with the API failed: its certificate is not trusted (ipam.caFile), or it refused ours */
  TLS_FAILURE: 102,
} as const;

/** A failure the plugin reports to the runtime as a CNI error (stdout JSON, exit status 1). */
export class CniError extends Error {
  constructor(
    readonly code: number,
    readonly msg: string,
    readonly details = '',
  ) {
    super(msg);
    this.name = 'CniError';
  }
}
