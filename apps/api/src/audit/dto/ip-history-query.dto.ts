import { IsOptional } from 'class-validator';
import { ListQueryDto } from '../../http/list-query.dto';
import { TextOf } from '../../http/limits';

export class IpHistoryQueryDto extends ListQueryDto {
  @IsOptional()
  @TextOf('network', {
    required: false,
    example: 'blue',
    description: "narrows to one isolated network's history: the entries of that network's pools (a pool's `network`)",
  })
  network?: string;
}
