import { cidrContains, formatCidr, formatIp, formatIpRange, type Cidr } from '@ipledger/ip';
import { InvalidInputError } from '../errors/domain-error';
import { cidrArgument, ipArgument, rangeArgument } from '../ip-input';
import { usableSpan } from './usable-span';
import { parseBlocks, type BlockAffinity, type PoolBlocks } from './pool-blocks';
import { refuseSpecialRange } from './special-range';
import { validateNetwork } from '../network-name';
import { LabelSelector, validateDns1123Label, validateLabels, type Labels } from '../labels';

export interface PoolSpecInput {
  name: string;
  cidr: string;
  gateway?: string | null;
  labels?: Record<string, string>;
  nodeSelector?: string | null;
  /** a label selector over cluster labels: the clusters that may allocate from the pool; null: every cluster */
  clusterSelector?: string | null;
  reserved?: string[];
  disabled?: boolean;
  blockSize?: number;
  blockAffinity?: BlockAffinity;
  blockReleaseSeconds?: number;
  reuseDelaySeconds?: number;
  /** lets the CIDR lie in or over a special range (special-range.ts) */
  allowSpecialRanges?: boolean;
  /** the isolated network whose address space the pool is in (pool-overlap.ts); null: the shared space */
  network?: string | null;
}

/** A pool definition that passed every rule, in canonical text forms: the data of PoolCreated. */
// a type alias, not an interface: event data must be assignable to Record<string, unknown>
export type PoolSpec = {
  name: string;
  cidr: string;
  family: 4 | 6;
  /** inside the usable span, never handed out, named in every allocation's result */
  gateway: string | null;
  labels: Labels;
  nodeSelector: string | null;
  /**
   * The clusters that may allocate from the pool, by their labels. Present only when set: absent,
   * and null in a read model's row, is every cluster, as every PoolCreated recorded before it was.
   */
  clusterSelector?: string | null;
  reserved: string[];
  disabled: boolean;
  /** present only when above 0 (the default): PoolCreated events recorded before it lack it */
  reuseDelaySeconds?: number;
  /** present only when true: the CIDR may lie in or over a special range (special-range.ts) */
  allowSpecialRanges?: boolean;
  /**
   * The isolated network (a CNI network name) whose own address space the pool is in; immutable.
   * Present only when set: absent, and null in a read model's row, is the shared space, as every
   * PoolCreated recorded before networks were.
   */
  network?: string | null;
} & Partial<PoolBlocks>;

/** The longest reuse delay: the cooling addresses a pool tracks grow with its release rate times this. */
export const MAX_REUSE_DELAY_SECONDS = 3600;

/** Seconds a released address is kept from new holders: a whole number from 0 to MAX_REUSE_DELAY_SECONDS. */
export function validReuseDelay(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_REUSE_DELAY_SECONDS) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `reuseDelaySeconds must be a whole number from 0 to ${MAX_REUSE_DELAY_SECONDS}, got ${String(seconds)}`,
    );
  }
  return seconds;
}

/** An empty selector selects every node (cluster); stored as null so "no rule" has one spelling. */
export function canonicalSelector(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const selector = LabelSelector.parse(text);
  return selector.isEmpty() ? null : selector.toString();
}

function canonicalReserved(entries: string[], cidr: Cidr): string[] {
  return entries.map((entry) => {
    const range = rangeArgument(entry);
    const inside =
      range.family === cidr.family &&
      cidrContains(cidr, { family: range.family, value: range.first }) &&
      cidrContains(cidr, { family: range.family, value: range.last });
    if (!inside) {
      throw new InvalidInputError('INVALID_IP', `reserved "${entry}" is not inside the pool's CIDR ${formatCidr(cidr)}`);
    }
    return formatIpRange(range);
  });
}

function canonicalGateway(text: string | null | undefined, cidr: Cidr): string | null {
  if (text === null || text === undefined) return null;
  const gateway = ipArgument(text);
  const [first, last] = usableSpan(cidr);
  if (gateway.family !== cidr.family || gateway.value < first || gateway.value > last) {
    throw new InvalidInputError(
      'INVALID_IP',
      `gateway "${text}" is not a usable address of the pool's CIDR ${formatCidr(cidr)} (network and broadcast addresses excluded)`,
    );
  }
  return formatIp(gateway);
}

/** The default, 0, has one spelling: no field. */
function reuseDelayField(seconds: number | undefined): { reuseDelaySeconds?: number } {
  return seconds === undefined || validReuseDelay(seconds) === 0 ? {} : { reuseDelaySeconds: seconds };
}

/** Every cluster, the default, has one spelling: no field. */
function clusterSelectorField(text: string | null | undefined): { clusterSelector?: string } {
  const clusterSelector = canonicalSelector(text);
  return clusterSelector === null ? {} : { clusterSelector };
}

export function parsePoolSpec(input: PoolSpecInput): PoolSpec {
  validateDns1123Label(input.name, 'pool name');
  const cidr = cidrArgument(input.cidr);
  refuseSpecialRange(input.name, cidr, input.allowSpecialRanges === true);
  return {
    name: input.name,
    cidr: formatCidr(cidr),
    family: cidr.family,
    gateway: canonicalGateway(input.gateway, cidr),
    labels: validateLabels(input.labels ?? {}),
    nodeSelector: canonicalSelector(input.nodeSelector),
    reserved: canonicalReserved(input.reserved ?? [], cidr),
    disabled: input.disabled ?? false,
    ...parseBlocks(input, cidr),
    ...reuseDelayField(input.reuseDelaySeconds),
    ...(input.allowSpecialRanges ? { allowSpecialRanges: true } : {}),
    ...clusterSelectorField(input.clusterSelector),
    ...(input.network === undefined || input.network === null ? {} : { network: validateNetwork(input.network) }),
  };
}
