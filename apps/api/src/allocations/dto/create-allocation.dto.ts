import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALLOCATION_OWNERS } from '@ipledger/domain';
import { ArrayMaxSize, IsArray, IsInt, IsString, MaxLength } from 'class-validator';
import { CheckedBySchema } from '../../http/body-schema';
import { LIMITS } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';

/** The hot route's body: checked by its compiled schema (body-schema.ts), not class-validator at each request. */
@CheckedBySchema()
export class CreateAllocationDto {
  @ApiProperty({
    example: '9f1c2e…:eth0',
    description: `the attachment: CNI container id + interface (1-${LIMITS.handle} characters)`,
    maxLength: LIMITS.handle,
  })
  @IsString()
  @MaxLength(LIMITS.handle)
  handle!: string;

  @ApiProperty({ example: 'worker-1', maxLength: LIMITS.name }) @IsString() @MaxLength(LIMITS.name) node!: string;
  @ApiProperty({ example: 'default', maxLength: LIMITS.shortName }) @IsString() @MaxLength(LIMITS.shortName) namespace!: string;
  @ApiProperty({ example: 'web-0', maxLength: LIMITS.name }) @IsString() @MaxLength(LIMITS.name) pod!: string;

  @ApiPropertyOptional({
    description: "the pod's uid; a pod deleted by the watcher releases only its own addresses",
    maxLength: LIMITS.uid,
  })
  @OptionalField()
  @IsString()
  @MaxLength(LIMITS.uid)
  podUid?: string;

  @ApiPropertyOptional({
    example: 'k8s-pod-network',
    description: "the CNI network (its config's name) the address is for; CNI GC lists a node's allocations by it",
    maxLength: LIMITS.name,
  })
  @OptionalField()
  @IsString()
  @MaxLength(LIMITS.name)
  network?: string;

  @ApiPropertyOptional({
    enum: ALLOCATION_OWNERS,
    description:
      'who the address is for. pod (the default when podUid is given): released when the pod is deleted or vanishes; external (the default otherwise: a VM, a load balancer, a router): only by an explicit release',
  })
  @OptionalField()
  @IsString()
  @MaxLength(LIMITS.shortName)
  owner?: string;

  @ApiPropertyOptional({ example: '10.4.0.17', description: 'this exact address', maxLength: LIMITS.address })
  @OptionalField()
  @IsString()
  @MaxLength(LIMITS.address)
  ip?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', enum: [4, 6] },
    maxItems: 2,
    example: [4, 6],
    description: '[4], [6] or [4,6] (dual stack: both or neither); default [4]',
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(2)
  @IsInt({ each: true })
  families?: number[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', maxLength: LIMITS.shortName },
    maxItems: LIMITS.pools,
    description: 'pool names, tried in this order',
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(LIMITS.pools)
  @IsString({ each: true })
  @MaxLength(LIMITS.shortName, { each: true })
  pools?: string[];

  @ApiPropertyOptional({ example: 'tier=gold', description: 'Kubernetes label selector over pool labels', maxLength: LIMITS.selector })
  @OptionalField()
  @IsString()
  @MaxLength(LIMITS.selector)
  poolSelector?: string;

  @ApiPropertyOptional({
    example: 'pool-group',
    description: "pools whose value for this label equals the node's",
    maxLength: LIMITS.labelKey,
  })
  @OptionalField()
  @IsString()
  @MaxLength(LIMITS.labelKey)
  matchLabel?: string;
}
