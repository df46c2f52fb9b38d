import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';

export class PutNodeDto {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { 'pool-group': 'group-1', zone: 'a' } })
  @IsObject()
  labels!: Record<string, string>;
}
