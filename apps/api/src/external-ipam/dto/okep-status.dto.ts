import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class FamilyUsageDto {
  @ApiProperty({ example: 12, description: 'addresses held (one co-held by two references counts once)' })
  allocated!: number;

  @ApiPropertyOptional({ example: 65520, description: 'addresses free; left out when the count does not fit a JSON number' })
  available?: number;
}

class UsageDto {
  @ApiProperty({ type: FamilyUsageDto }) IPv4!: FamilyUsageDto;
  @ApiProperty({ type: FamilyUsageDto }) IPv6!: FamilyUsageDto;
}

class NetworkPoolsDto {
  @ApiProperty({ example: ['10.50.0.0/16'] }) subnets!: string[];
}

export class OkepStatusDto {
  @ApiProperty({ example: 'v1' }) api_version!: string;
  @ApiProperty({ example: ['v1'] }) supported_api_versions!: string[];
  @ApiProperty({ description: 'false while the database is away (pools and usage are then left out)' }) ready!: boolean;
  @ApiProperty({ example: ['owner-references', 'requested-ips'] }) capabilities!: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/NetworkPoolsDto' },
    description: "each network's subnets",
  })
  pools?: Record<string, NetworkPoolsDto>;

  @ApiPropertyOptional({ type: UsageDto, description: 'every network served here, by family' })
  usage?: UsageDto;
}

export { NetworkPoolsDto };
