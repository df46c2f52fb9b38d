import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsObject, IsOptional, IsString, ValidateIf } from 'class-validator';

export class CreatePoolDto {
  @ApiProperty({ example: 'rack-7', description: 'DNS-1123 label' })
  @IsString()
  name!: string;

  @ApiProperty({ example: '10.4.0.0/24', description: 'network address and prefix length (IPv4 or IPv6)' })
  @IsString()
  cidr!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { 'pool-group': 'group-1' } })
  @IsOptional() @IsObject()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'zone=a', description: 'Kubernetes label selector over node labels' })
  @IsOptional() @ValidateIf((_, value) => value !== null) @IsString()
  nodeSelector?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['10.4.0.1', '10.4.0.250-10.4.0.254'] })
  @IsOptional() @IsArray() @IsString({ each: true })
  reserved?: string[];

  @ApiPropertyOptional({ default: false })
  @IsOptional() @IsBoolean()
  disabled?: boolean;
}
