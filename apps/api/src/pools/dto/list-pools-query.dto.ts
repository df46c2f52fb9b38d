import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { LIMITS } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListPoolsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    example: 'pool-group=group-1',
    description: 'Kubernetes label selector over pool labels',
    maxLength: LIMITS.selector,
  })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.selector)
  labelSelector?: string;

  @ApiPropertyOptional({ description: "keep pools whose nodeSelector matches this node's labels", maxLength: LIMITS.name })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.name)
  node?: string;
}
