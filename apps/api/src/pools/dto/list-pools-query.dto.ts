import { IsOptional } from 'class-validator';
import { TextOf } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListPoolsQueryDto extends ListQueryDto {
  @IsOptional()
  @TextOf('selector', { required: false, example: 'pool-group=group-1', description: 'Kubernetes label selector over pool labels' })
  labelSelector?: string;

  @IsOptional()
  @TextOf('nodeName', { required: false, description: "keep pools whose nodeSelector matches this node's labels" })
  node?: string;
}
