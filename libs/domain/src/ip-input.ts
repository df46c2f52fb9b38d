import { IpFormatError, parseCidr, parseIp, parseIpRange, type Cidr, type IpAddress, type IpRange } from '@ipledger/ip';
import { InvalidInputError } from './errors/domain-error';

/** libs/ip speaks plain errors; the domain turns them into 400s with the same helpful text. */
function asValidation<T>(parse: () => T, code: 'INVALID_IP' | 'INVALID_CIDR'): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof IpFormatError) throw new InvalidInputError(code, err.message);
    throw err;
  }
}

export const ipArgument = (text: string): IpAddress => asValidation(() => parseIp(text), 'INVALID_IP');
export const cidrArgument = (text: string): Cidr => asValidation(() => parseCidr(text), 'INVALID_CIDR');
export const rangeArgument = (text: string): IpRange => asValidation(() => parseIpRange(text), 'INVALID_IP');
