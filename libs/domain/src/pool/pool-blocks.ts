import { familyBits, type Cidr } from '@ipledger/ip';
import { InvalidInputError } from '../errors/domain-error';

export type BlockAffinity = 'strict' | 'borrow';

/** How a pool is handed to nodes in blocks; absent from a pool without blocks (and from events recorded before blocks were). */
// a type alias, not an interface: event data must be assignable to Record<string, unknown>
export type PoolBlocks = {
  /** the prefix length of a block, longer than the pool's */
  blockSize: number;
  /** `strict`: a node never takes an address from another node's block */
  blockAffinity: BlockAffinity;
  /** how long a block stays empty before it goes back to the pool */
  blockReleaseSeconds: number;
};

/** At most 2^16 blocks a pool: the planner may walk every block of a pool to find a free one. */
export const MAX_BLOCK_BITS = 16;
export const MAX_BLOCK_RELEASE_SECONDS = 7 * 24 * 3600;
export const DEFAULT_BLOCK_RELEASE_SECONDS = 300;

interface BlocksInput {
  blockSize?: number;
  blockAffinity?: BlockAffinity;
  blockReleaseSeconds?: number;
}

/** The block fields of a pool definition, checked against its CIDR; none when `blockSize` is not set. */
export function parseBlocks(input: BlocksInput, cidr: Cidr): PoolBlocks | Record<string, never> {
  const { blockSize, blockAffinity, blockReleaseSeconds } = input;
  if (blockSize === undefined || blockSize === null) {
    if (blockAffinity !== undefined || blockReleaseSeconds !== undefined) {
      throw new InvalidInputError('INVALID_ARGUMENT', 'blockAffinity and blockReleaseSeconds need blockSize');
    }
    return {};
  }
  const bits = familyBits(cidr.family);
  const longest = Math.min(bits, cidr.prefixLength + MAX_BLOCK_BITS);
  if (!Number.isInteger(blockSize) || blockSize <= cidr.prefixLength || blockSize > longest) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `blockSize ${String(blockSize)} must be a prefix length from ${cidr.prefixLength + 1} to ${longest} for a /${cidr.prefixLength} pool ` +
        `(longer than the pool's, at most ${bits}, and at most 2^${MAX_BLOCK_BITS} blocks)`,
    );
  }
  if (blockAffinity !== undefined && blockAffinity !== 'strict' && blockAffinity !== 'borrow') {
    throw new InvalidInputError('INVALID_ARGUMENT', `blockAffinity "${String(blockAffinity)}" must be "strict" or "borrow"`);
  }
  const seconds = blockReleaseSeconds ?? DEFAULT_BLOCK_RELEASE_SECONDS;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_BLOCK_RELEASE_SECONDS) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `blockReleaseSeconds ${String(blockReleaseSeconds)} must be a whole number from 0 to ${MAX_BLOCK_RELEASE_SECONDS}`,
    );
  }
  return { blockSize, blockAffinity: blockAffinity ?? 'borrow', blockReleaseSeconds: seconds };
}
