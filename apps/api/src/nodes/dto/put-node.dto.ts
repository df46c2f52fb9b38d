import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';
import { LIMITS } from '../../http/limits';

export class PutNodeDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: LIMITS.labelValue },
    maxProperties: LIMITS.labels,
    example: { 'pool-group': 'group-1', zone: 'a' },
  })
  @IsObject()
  labels!: Record<string, string>;
}
