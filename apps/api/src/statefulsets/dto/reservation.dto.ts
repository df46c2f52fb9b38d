import { ApiProperty } from '@nestjs/swagger';

export class AddressRangeDto {
  @ApiProperty({ example: '10.4.0.10' }) start!: string;
  @ApiProperty({ example: '10.4.0.12' }) end!: string;
}

export class ReservationDto {
  @ApiProperty({ example: 'default', description: 'the cluster whose StatefulSet it is' }) cluster!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty() name!: string;
  @ApiProperty() replicas!: number;
  @ApiProperty() ordinalsStart!: number;
  @ApiProperty({ type: String, nullable: true }) pool!: string | null;
  @ApiProperty({ enum: ['continuous', 'dynamic'] }) mode!: 'continuous' | 'dynamic';
  @ApiProperty({ type: AddressRangeDto, nullable: true }) range!: AddressRangeDto | null;
  @ApiProperty({ type: String, nullable: true, description: 'why no (or only part of a) continuous range is held' }) reason!: string | null;
  @ApiProperty() version!: number;
}
