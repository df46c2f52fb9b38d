import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsObject, Max, Min, ValidateIf } from 'class-validator';
import { MAX_BLOCK_BITS, MAX_BLOCK_RELEASE_SECONDS } from '@ipledger/domain';
import { LIMITS, TextOf, TextsOf } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';

export class CreatePoolDto {
  @TextOf('poolName', { example: 'rack-7', description: 'DNS-1123 label' })
  name!: string;

  @TextOf('address', { example: '10.4.0.0/24', description: 'network address and prefix length (IPv4 or IPv6)' })
  cidr!: string;

  @ValidateIf((_, value) => value !== undefined && value !== null)
  @TextOf('address', {
    required: false,
    nullable: true,
    example: '10.4.0.1',
    description: 'an address inside the CIDR: never handed out, returned with every allocation from the pool. Immutable.',
  })
  gateway?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: LIMITS.labelValue },
    maxProperties: LIMITS.labels,
    example: { 'pool-group': 'group-1' },
    description: `Kubernetes labels (keys up to ${LIMITS.labelKey} characters, values up to 63), at most ${LIMITS.labels}`,
  })
  @OptionalField()
  @IsObject()
  labels?: Record<string, string>;

  @ValidateIf((_, value) => value !== undefined && value !== null)
  @TextOf('selector', { required: false, nullable: true, example: 'zone=a', description: 'Kubernetes label selector over node labels' })
  nodeSelector?: string | null;

  @ValidateIf((_, value) => value !== undefined && value !== null)
  @TextOf('selector', {
    required: false,
    nullable: true,
    example: 'region=east',
    description:
      'Kubernetes label selector over cluster labels (PUT /v1/clusters/{name}): only the clusters it matches allocate from the pool, on top of every other rule. Null (the default): every cluster.',
  })
  clusterSelector?: string | null;

  @OptionalField()
  @TextsOf('address', LIMITS.reserved, { required: false, example: ['10.4.0.1', '10.4.0.250-10.4.0.254'] })
  reserved?: string[];

  @ApiPropertyOptional({ default: false })
  @OptionalField()
  @IsBoolean()
  disabled?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 128,
    example: 26,
    description: `the prefix length of the blocks the pool is handed to nodes in (26 for IPv4, 122 for IPv6): longer than the pool's, at most 2^${MAX_BLOCK_BITS} blocks. Immutable.`,
  })
  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(128)
  blockSize?: number;

  @ApiPropertyOptional({
    enum: ['strict', 'borrow'],
    default: 'borrow',
    description: "borrow: a node may take an address from another node's block when no block is free; strict: never (POOL_EXHAUSTED)",
  })
  @OptionalField()
  @IsIn(['strict', 'borrow'])
  blockAffinity?: 'strict' | 'borrow';

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_BLOCK_RELEASE_SECONDS,
    default: 300,
    description: 'how long a block stays empty before it goes back to the pool',
  })
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(MAX_BLOCK_RELEASE_SECONDS)
  blockReleaseSeconds?: number;

  @ApiPropertyOptional({
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: LIMITS.reuseDelaySeconds,
    example: 60,
    description:
      'seconds a released address is not handed out again while others are free (StatefulSet ordinals and requested addresses are exempt); 0 hands it out again at once',
  })
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(LIMITS.reuseDelaySeconds)
  reuseDelaySeconds?: number;

  @ApiPropertyOptional({
    default: false,
    description:
      'lets the CIDR lie in or over a special range: the whole space (0.0.0.0/0, ::/0), unspecified (0.0.0.0/8, ::/128), loopback (127.0.0.0/8, ::1/128), link-local (169.254.0.0/16, fe80::/10), multicast (224.0.0.0/4, ff00::/8) or IPv4-mapped IPv6 (::ffff:0:0/96), which are otherwise refused with 400 SPECIAL_RANGE. An IPv4-mapped pool still never shares an address with an IPv4 pool (409 POOL_OVERLAP).',
  })
  @OptionalField()
  @IsBoolean()
  allowSpecialRanges?: boolean;

  @ValidateIf((_, value) => value !== undefined && value !== null)
  @TextOf('network', {
    required: false,
    nullable: true,
    example: 'blue',
    description:
      'the isolated network (a CNI network name: a letter or digit, then letters, digits, "_", "." or "-", at most 253) whose own address space the pool is in: 409 POOL_OVERLAP only against pools of the same network, and an allocation naming the network takes its address from that network\'s pools. Null (the default): the shared space. Immutable.',
  })
  network?: string | null;
}
