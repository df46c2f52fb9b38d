import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALLOCATION_OWNERS, type AllocationOwner } from '@ipledger/domain';

export class StatefulSetRefDto {
  @ApiProperty() namespace!: string;
  @ApiProperty() name!: string;
  @ApiProperty() ordinal!: number;
}

export class HeldForNodeDto {
  @ApiProperty({ description: 'the node whose sandbox may still use the address' }) node!: string;
  @ApiProperty({
    enum: ['node-not-ready', 'containers-running'],
    description:
      'node-not-ready: the pod was deleted while its node was not Ready; containers-running: force-deleted with running containers',
  })
  cause!: 'node-not-ready' | 'containers-running';
  @ApiProperty({ format: 'date-time', description: 'when the pod was deleted and the address held' }) since!: string;
}

export class AllocationDto {
  @ApiProperty() handle!: string;
  @ApiProperty({ example: 'default', description: 'the cluster of the handle and node' }) cluster!: string;
  @ApiProperty({ example: '10.4.0.17' }) ip!: string;
  @ApiProperty({ example: 24 }) prefixLength!: number;
  @ApiProperty({ example: '10.4.0.0/24' }) cidr!: string;
  @ApiProperty() pool!: string;
  @ApiPropertyOptional({ example: '10.4.0.1', description: "the pool's gateway, when it has one" }) gateway?: string;
  @ApiProperty() node!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty() pod!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) podUid!: string | null;
  @ApiProperty({
    enum: ALLOCATION_OWNERS,
    description: 'pod: released when the pod is deleted or vanishes (leak collection); external: only by an explicit release',
  })
  owner!: AllocationOwner;
  @ApiProperty({ enum: [4, 6] }) family!: 4 | 6;
  @ApiPropertyOptional({ type: StatefulSetRefDto, description: "the StatefulSet whose pod holds it, and the pod's ordinal" })
  statefulSet?: StatefulSetRefDto;
  @ApiPropertyOptional({ example: 'k8s-pod-network', description: 'the CNI network (config `name`) it was allocated through' })
  network?: string;
  @ApiProperty({ format: 'date-time' }) allocatedAt!: string;
  @ApiPropertyOptional({
    type: HeldForNodeDto,
    description:
      'present while its pod is deleted but its sandbox may still use the address: not free until the node CNI DEL or GC, the node object is deleted, or IPAM_UNREACHABLE_NODE_GRACE_SECONDS after the node was last Ready',
  })
  heldForNode?: HeldForNodeDto;
  @ApiPropertyOptional({
    enum: [true],
    description:
      'present (true) when a running pod already used the address before ipledger knew it (a cluster moving from another IPAM) and the Kubernetes consumer adopted it',
  })
  adopted?: true;
  @ApiPropertyOptional({ description: "present when the handle is a reference of this claim: the addresses are the claim's" })
  claim?: string;
}

export class AllocationItemsDto {
  @ApiProperty({ type: [AllocationDto] }) items!: AllocationDto[];
}

export class AllocationListDto extends AllocationItemsDto {
  @ApiProperty({ type: String, nullable: true }) continue!: string | null;
}
