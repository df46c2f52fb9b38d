import { ApiProperty } from '@nestjs/swagger';
import { AddressRangeDto } from '../../statefulsets/dto/reservation.dto';

export class IpSetDto {
  @ApiProperty({ example: 'default', description: "the workload's cluster" }) cluster!: string;
  @ApiProperty({ example: 'shop' }) namespace!: string;
  @ApiProperty({ enum: ['Deployment', 'ReplicaSet'], description: "the workload: a ReplicaSet's Deployment, or a bare ReplicaSet" })
  kind!: 'Deployment' | 'ReplicaSet';
  @ApiProperty({ example: 'web' }) name!: string;
  @ApiProperty({ example: 'rack-7' }) pool!: string;
  @ApiProperty({ type: AddressRangeDto, description: "the set's addresses, reserved for the workload's pods only" })
  range!: AddressRangeDto;
  @ApiProperty({ example: 3, description: 'addresses in the set' }) size!: number;
  @ApiProperty({ example: 2, description: 'of size, those its pods hold now' }) held!: number;
}

export class IpSetListDto {
  @ApiProperty({ type: [IpSetDto] }) items!: IpSetDto[];
  @ApiProperty({ type: String, nullable: true }) continue!: string | null;
}
