import { ApiPropertyOptional } from '@nestjs/swagger';
import { ALLOCATION_OWNERS } from '@ipledger/domain';
import { ArrayMaxSize, IsArray, IsInt } from 'class-validator';
import { CheckedBySchema } from '../../http/body-schema';
import { LIMITS, TextOf, TextsOf } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';

/** The hot route's body: checked by its compiled schema (body-schema.ts), not class-validator at each request. */
@CheckedBySchema()
export class CreateAllocationDto {
  @TextOf('handle', {
    example: '9f1c2e…:eth0',
    description: `the attachment: CNI container id + interface (1-${LIMITS.handle} characters)`,
  })
  handle!: string;

  @OptionalField()
  @TextOf('cluster', {
    required: false,
    example: 'east',
    description: "the cluster of the handle and node: default the route's (`/v1/clusters/{cluster}`), else the token's, else `default`",
  })
  cluster?: string;

  @TextOf('nodeName', { example: 'worker-1' }) node!: string;
  @TextOf('namespace', { example: 'default' }) namespace!: string;
  @TextOf('podName', { example: 'web-0' }) pod!: string;

  @OptionalField()
  @TextOf('uid', { required: false, description: "the pod's uid; a pod deleted by the watcher releases only its own addresses" })
  podUid?: string;

  @OptionalField()
  @TextOf('network', {
    required: false,
    example: 'k8s-pod-network',
    description: "the CNI network (its config's name) the address is for; CNI GC lists a node's allocations by it",
  })
  network?: string;

  @OptionalField()
  @TextOf('owner', {
    required: false,
    enum: ALLOCATION_OWNERS,
    description:
      'who the address is for. pod (the default when podUid is given): released when the pod is deleted or vanishes; external (the default otherwise: a VM, a load balancer, a router): only by an explicit release',
  })
  owner?: string;

  @OptionalField()
  @TextOf('address', { required: false, example: '10.4.0.17', description: 'this exact address' })
  ip?: string;

  @OptionalField()
  @TextOf('claim', {
    required: false,
    example: 'kubevirt:default:vms:db-1',
    description:
      "a claim whose addresses the handle takes, as one of its at most two live references (a VM's pods across restart and migration): new ones, one a family, for a claim holding none (201), else the same ones (200)",
  })
  claim?: string;

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

  @OptionalField()
  @TextsOf('poolName', LIMITS.pools, { required: false, description: 'pool names, tried in this order' })
  pools?: string[];

  @OptionalField()
  @TextOf('selector', { required: false, example: 'tier=gold', description: 'Kubernetes label selector over pool labels' })
  poolSelector?: string;

  @OptionalField()
  @TextOf('labelKey', { required: false, example: 'pool-group', description: "pools whose value for this label equals the node's" })
  matchLabel?: string;
}
