import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALLOCATION_OWNERS } from '@ipledger/domain';
import { ArrayMaxSize, IsArray, IsInt, IsString } from 'class-validator';
import { Optional } from '../../http/optional';

export class CreateAllocationDto {
  @ApiProperty({ example: '9f1c2e…:eth0', description: 'the attachment: CNI container id + interface (1-255 characters)' })
  @IsString()
  handle!: string;

  @ApiProperty({ example: 'worker-1' }) @IsString() node!: string;
  @ApiProperty({ example: 'default' }) @IsString() namespace!: string;
  @ApiProperty({ example: 'web-0' }) @IsString() pod!: string;

  @ApiPropertyOptional({ description: "the pod's uid; a pod deleted by the watcher releases only its own addresses" })
  @Optional()
  @IsString()
  podUid?: string;

  @ApiPropertyOptional({
    enum: ALLOCATION_OWNERS,
    description:
      'who the address is for. pod (the default when podUid is given): released when the pod is deleted or vanishes; external (the default otherwise: a VM, a load balancer, a router): only by an explicit release',
  })
  @Optional()
  @IsString()
  owner?: string;

  @ApiPropertyOptional({ example: '10.4.0.17', description: 'this exact address' })
  @Optional()
  @IsString()
  ip?: string;

  @ApiPropertyOptional({ type: [Number], example: [4, 6], description: '[4], [6] or [4,6] (dual stack: both or neither); default [4]' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsInt({ each: true })
  families?: number[];

  @ApiPropertyOptional({ type: [String], description: 'pool names, tried in this order' })
  @Optional()
  @IsArray()
  @IsString({ each: true })
  pools?: string[];

  @ApiPropertyOptional({ example: 'tier=gold', description: 'Kubernetes label selector over pool labels' })
  @Optional()
  @IsString()
  poolSelector?: string;

  @ApiPropertyOptional({ example: 'pool-group', description: "pools whose value for this label equals the node's" })
  @Optional()
  @IsString()
  matchLabel?: string;
}
