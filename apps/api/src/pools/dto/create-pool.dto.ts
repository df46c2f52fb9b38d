import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsObject, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { LIMITS } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';

export class CreatePoolDto {
  @ApiProperty({ example: 'rack-7', description: 'DNS-1123 label', maxLength: LIMITS.shortName })
  @IsString()
  @MaxLength(LIMITS.shortName)
  name!: string;

  @ApiProperty({ example: '10.4.0.0/24', description: 'network address and prefix length (IPv4 or IPv6)', maxLength: LIMITS.address })
  @IsString()
  @MaxLength(LIMITS.address)
  cidr!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '10.4.0.1',
    description: 'an address inside the CIDR: never handed out, returned with every allocation from the pool. Immutable.',
    maxLength: LIMITS.address,
  })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsString()
  @MaxLength(LIMITS.address)
  gateway?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 63 },
    maxProperties: LIMITS.labels,
    example: { 'pool-group': 'group-1' },
    description: `Kubernetes labels (keys up to ${LIMITS.labelKey} characters, values up to 63), at most ${LIMITS.labels}`,
  })
  @OptionalField()
  @IsObject()
  labels?: Record<string, string>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'zone=a',
    description: 'Kubernetes label selector over node labels',
    maxLength: LIMITS.selector,
  })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsString()
  @MaxLength(LIMITS.selector)
  nodeSelector?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', maxLength: LIMITS.address },
    maxItems: LIMITS.reserved,
    example: ['10.4.0.1', '10.4.0.250-10.4.0.254'],
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(LIMITS.reserved)
  @IsString({ each: true })
  @MaxLength(LIMITS.address, { each: true })
  reserved?: string[];

  @ApiPropertyOptional({ default: false })
  @OptionalField()
  @IsBoolean()
  disabled?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: LIMITS.reuseDelaySeconds,
    example: 60,
    description:
      'seconds a released address is not handed out again while others are free (StatefulSet ordinals and requested addresses are exempt); 0 hands it out again at once',
  })
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(LIMITS.reuseDelaySeconds)
  reuseDelaySeconds?: number;
}
