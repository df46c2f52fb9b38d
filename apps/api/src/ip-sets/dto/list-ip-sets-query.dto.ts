import { IsOptional } from 'class-validator';
import { TextOf } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListIpSetsQueryDto extends ListQueryDto {
  @IsOptional()
  @TextOf('namespace', { required: false, example: 'shop', description: 'only the sets of this namespace' })
  namespace?: string;
}
