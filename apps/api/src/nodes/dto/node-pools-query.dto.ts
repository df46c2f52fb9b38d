import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { TextOf } from '../../http/limits';

export class NodePoolsQueryDto {
  @IsOptional()
  @TextOf('labelKey', { required: false, example: 'pool-group', description: "pools whose value for this label key equals the node's" })
  matchLabel?: string;

  @IsOptional()
  @TextOf('selector', { required: false, example: 'tier in (gold,silver)' })
  poolSelector?: string;

  @IsOptional()
  @TextOf('namespace', {
    required: false,
    example: 'shop',
    description: 'a namespace whose pool annotations (as the watcher last sent them) choose the pools, over matchLabel and poolSelector',
  })
  namespace?: string;

  @IsOptional()
  @TextOf('podName', {
    required: false,
    example: 'web-1',
    description: "a pod of `namespace` whose pool annotations choose the pools, over its namespace's",
  })
  pod?: string;

  @IsOptional()
  @TextOf('network', {
    required: false,
    example: 'storage',
    description:
      'the CNI network name an allocation would name: its own pools when some pool has that network (isolated networks), else the pools of no network; and its `ipam.ipledger.io/networks` annotation entry',
  })
  network?: string;

  @IsOptional()
  @TextOf('poolName', {
    required: false,
    example: 'g2',
    description:
      'ask about this one pool: `items` holds it when allocation would take an address of it, else `excluded` (with explain=true) says ' +
      "every reason, the rule's own included (matchLabel's value differs, the selector does not match), and no free address. " +
      '404 POOL_NOT_FOUND when there is no such pool',
  })
  pool?: string;

  @ApiPropertyOptional({
    enum: ['4', '6', '4,6'],
    description: "the address families asked for, as an allocation's `families` (default both); a pod's or namespace's annotation wins",
  })
  @IsOptional()
  @IsIn(['4', '6', '4,6'])
  families?: string;

  @ApiPropertyOptional({ description: 'also list each pool considered and left out, with the reason, and which rule chose the candidates' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  explain?: boolean;
}
