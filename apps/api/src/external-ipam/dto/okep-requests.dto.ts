import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject } from 'class-validator';
import { LIMITS, TextOf, TextsOf } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';

/**
 * OKEP-6831's request bodies, in its snake_case names. Unknown fields are ignored (the contract
 * says so, unlike /v1): the controller validates these with a pipe that drops them.
 */
class NetworkAndCluster {
  @TextOf('network', { example: 'cluster_udn_tenant-blue', description: "the caller's network (an isolated address space here)" })
  network!: string;

  @TextOf('cluster', { example: 'east', description: 'the calling cluster; a token scoped to a cluster may name only its own' })
  cluster!: string;
}

export class RegisterDto extends NetworkAndCluster {
  @TextsOf('address', LIMITS.subnets, { example: ['10.50.0.0/16', 'fd00:50::/64'], description: 'one pool a subnet' })
  subnets!: string[];

  @OptionalField()
  @TextsOf('address', LIMITS.reserved, { required: false, example: ['10.50.0.1'], description: 'never handed out (the gateway)' })
  exclude_ips?: string[];
}

export class DeregisterDto extends NetworkAndCluster {}

export class AllocateDto extends NetworkAndCluster {
  @OptionalField()
  @TextsOf('address', LIMITS.subnets, {
    required: false,
    description: "the caller's view of the network's subnets; the registered ones decide",
  })
  subnets?: string[];

  @TextOf('workloadId', { example: 'tenant-blue/vm-a-launcher-x7k2p', description: 'the attachment, unique within (cluster, network)' })
  workload_id!: string;

  @OptionalField()
  @TextsOf('address', LIMITS.externalIps, {
    required: false,
    example: ['10.50.0.5'],
    description: 'exactly these addresses, at most one a family (each bare or with its prefix length)',
  })
  requested_ips?: string[];

  @OptionalField()
  @TextOf('externalOwner', { required: false, description: 'a stable identity (a claim) whose addresses outlive the workload' })
  owner?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    maxProperties: LIMITS.externalMetadata,
    description: 'free-form; never affects the allocation, not stored',
  })
  @OptionalField()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class ReleaseDto extends NetworkAndCluster {
  @TextsOf('address', LIMITS.externalIps, { example: ['10.50.0.5/16'], description: 'the addresses /allocate gave' })
  ips!: string[];

  @TextOf('workloadId', { example: 'tenant-blue/vm-a-launcher-x7k2p' })
  workload_id!: string;
}

export class AllocatedIpsDto {
  @ApiProperty({ example: ['10.50.0.5/16', 'fd00:50::5/64'], description: 'one address a family, with its subnet’s prefix length' })
  ips!: string[];
}
