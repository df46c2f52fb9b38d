import { ApiProperty } from '@nestjs/swagger';

export class AuditHeadDto {
  @ApiProperty({ description: 'events the chain covers: the first `count` of the feed', example: 1042 }) count!: number;
  @ApiProperty({ description: 'the last link of the chain, lowercase hex (SHA-256)', example: '9f2c…', pattern: '^[0-9a-f]{64}$' })
  hash!: string;
  @ApiProperty({ format: 'date-time', description: 'when the chain reached this head (the time of asking while it is empty)' })
  at!: string;
}
