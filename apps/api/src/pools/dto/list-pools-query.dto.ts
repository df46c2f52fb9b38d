import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListPoolsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'pool-group=group-1', description: 'Kubernetes label selector over pool labels' })
  @IsOptional()
  @IsString()
  labelSelector?: string;

  @ApiPropertyOptional({ description: "keep pools whose nodeSelector matches this node's labels" })
  @IsOptional()
  @IsString()
  node?: string;
}
