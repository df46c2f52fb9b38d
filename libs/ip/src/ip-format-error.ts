/** Which kind of text was being parsed, so callers can map it to their own error codes. */
export type IpFormatKind = 'ip' | 'cidr' | 'range';

/** Text that is not a valid address, CIDR or range; the message quotes the value and says what to fix. */
export class IpFormatError extends Error {
  constructor(
    readonly kind: IpFormatKind,
    message: string,
  ) {
    super(message);
    this.name = 'IpFormatError';
  }
}

const MAX_QUOTED = 64;

/** Quotes a value for a message. Values come from requests, so long ones are cut rather than echoed whole. */
export function quote(text: string): string {
  return text.length > MAX_QUOTED ? `${JSON.stringify(text.slice(0, MAX_QUOTED))}…` : JSON.stringify(text);
}

/**
 * Parses one part of a larger value (the address of a CIDR, one end of a range), re-labelling a
 * failure with `kind` and, when the part is not the whole value, naming the whole value too.
 */
export function parsePart<T>(kind: IpFormatKind, whole: string, part: string, parse: (text: string) => T): T {
  try {
    return parse(part);
  } catch (error) {
    if (!(error instanceof IpFormatError)) throw error;
    throw new IpFormatError(kind, part === whole ? error.message : `${quote(whole)}: ${error.message}`);
  }
}
