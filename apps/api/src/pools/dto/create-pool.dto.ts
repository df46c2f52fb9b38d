import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsObject, IsString, ValidateIf } from 'class-validator';
import { Optional } from '../../http/optional';

export class CreatePoolDto {
  @ApiProperty({ example: 'rack-7', description: 'DNS-1123 label' })
  @IsString()
  name!: string;

  @ApiProperty({ example: '10.4.0.0/24', description: 'network address and prefix length (IPv4 or IPv6)' })
  @IsString()
  cidr!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '10.4.0.1',
    description: 'an address inside the CIDR: never handed out, returned with every allocation from the pool. Immutable.',
  })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsString()
  gateway?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { 'pool-group': 'group-1' } })
  @Optional()
  @IsObject()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'zone=a', description: 'Kubernetes label selector over node labels' })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsString()
  nodeSelector?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['10.4.0.1', '10.4.0.250-10.4.0.254'] })
  @Optional()
  @IsArray()
  @IsString({ each: true })
  reserved?: string[];

  @ApiPropertyOptional({ default: false })
  @Optional()
  @IsBoolean()
  disabled?: boolean;
}
