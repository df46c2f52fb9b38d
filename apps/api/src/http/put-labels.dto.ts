import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';
import { LIMITS } from './limits';

/** The body of a PUT of a labelled object (a node, a cluster): its labels, replaced as a whole. */
export class PutLabelsDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: LIMITS.labelValue },
    maxProperties: LIMITS.labels,
    example: { 'pool-group': 'group-1', zone: 'a' },
  })
  @IsObject()
  labels!: Record<string, string>;
}
