import { isLoopback, type Config } from '../config';

/**
 * The start-up warning when bearer tokens would cross the network in clear text: tokens
 * configured, plain HTTP (no IPAM_TLS_CERT_FILE), and an address other machines reach. Null
 * otherwise: HTTPS, or loopback only (a proxy on the same machine may terminate TLS).
 */
export function plainHttpWithTokens(config: Pick<Config, 'host' | 'port' | 'tls' | 'tokens' | 'tokensFile'>): string | null {
  if (!(config.tokensFile || config.tokens.size) || config.tls || isLoopback(config.host)) return null;
  return (
    `tokens are configured but the API serves plain HTTP on ${config.host || 'every address'}:${config.port}: ` +
    'bearer tokens cross the network in clear text, readable by anyone on the path; ' +
    'serve HTTPS (IPAM_TLS_CERT_FILE and IPAM_TLS_KEY_FILE), or listen on loopback behind a proxy that terminates TLS'
  );
}
