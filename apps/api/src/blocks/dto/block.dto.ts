import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class BlockDto {
  @ApiProperty({ example: '10.4.0.64/26', description: 'the block: what a route controller announces towards its node' }) cidr!: string;
  @ApiProperty({ example: 'rack-7' }) pool!: string;
  @ApiPropertyOptional({ example: 'blue', description: "the pool's isolated network; absent: the shared space" })
  network?: string;
  @ApiProperty({ example: 'node-a', description: 'the node that claimed it' }) node!: string;
  @ApiProperty({ example: 'default', description: "the node's cluster" }) cluster!: string;
  @ApiProperty({ example: 12, description: 'addresses held in it, by any node' }) used!: number;
  @ApiProperty({ example: 0, description: 'of used, those borrowed by other nodes (blockAffinity borrow)' }) borrowed!: number;
}

export class BlockListDto {
  @ApiProperty({ type: [BlockDto] }) items!: BlockDto[];
  @ApiProperty({ type: String, nullable: true }) continue!: string | null;
}
