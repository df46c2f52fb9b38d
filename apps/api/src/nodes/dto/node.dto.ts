import { ApiProperty } from '@nestjs/swagger';

export class NodeDto {
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'default', description: "the node's cluster" }) cluster!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty() version!: number;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}
