import { ApiProperty } from '@nestjs/swagger';
import { EventDto } from '../../events/dto/event.dto';

export class PoolHistoryDto {
  @ApiProperty({ type: [EventDto], description: 'oldest first' }) items!: EventDto[];
  @ApiProperty({ type: String, nullable: true, description: 'token for the following page; null on the last' }) continue!: string | null;
}
