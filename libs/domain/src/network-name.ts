import { InvalidInputError } from './errors/domain-error';

export const MAX_NETWORK_LENGTH = 253;
/** The CNI specification's rule for a network name. */
const NETWORK_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * A CNI network name (a network config's `name`), as an allocation's `network` and a pool's: the
 * pool's takes the same rule, so every pool network can be asked for by the CNI plugin.
 */
export function validateNetwork(network: string, field = 'network'): string {
  if (network.length > MAX_NETWORK_LENGTH || !NETWORK_NAME.test(network)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${field} "${network.slice(0, 64)}" must be 1 to ${MAX_NETWORK_LENGTH} characters: a letter or digit, then letters, digits, "_", "." or "-"`,
    );
  }
  return network;
}
