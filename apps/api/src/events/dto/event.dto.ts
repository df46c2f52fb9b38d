import { ApiProperty } from '@nestjs/swagger';
import type { RecordedEvent } from '@ipledger/event-store';

export class EventDto {
  @ApiProperty() position!: number;
  @ApiProperty({ example: 'pool-rack-7' }) streamId!: string;
  @ApiProperty() version!: number;
  @ApiProperty({ example: 'IpAllocated' }) type!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'actor, source, correlationId, causationId' })
  metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) recordedAt!: string;
}

export class EventPageDto {
  @ApiProperty({ type: [EventDto] }) items!: EventDto[];
  @ApiProperty({ type: String, nullable: true, description: 'cursor for the following page' }) next!: string | null;
}

/** How a recorded event is shown over HTTP, wherever the log is read. */
export const toEventDto = ({ position, streamId, version, type, data, metadata, recordedAt }: RecordedEvent): EventDto => ({
  position,
  streamId,
  version,
  type,
  data,
  metadata,
  recordedAt: recordedAt.toISOString(),
});
