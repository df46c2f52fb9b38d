import { createParamDecorator, ValidationPipe, type ArgumentMetadata, type ExecutionContext, type Type } from '@nestjs/common';
import { InvalidInputError } from '@ipledger/domain';
import type { FastifyRequest } from 'fastify';
import { VALIDATION_OPTIONS } from '../http/validation.pipe';

/**
 * A JSON object body checked against its DTO with /v1's rules and messages, but with unknown fields
 * dropped rather than refused: OKEP-6831 has servers ignore fields they do not know, so a newer
 * caller keeps working. Bound as a custom parameter (OkepBody) so the global pipe, which refuses
 * unknown fields, leaves it to this one.
 */
class IgnoreUnknownFieldsPipe extends ValidationPipe {
  constructor(private readonly dto: Type) {
    super({ ...VALIDATION_OPTIONS, forbidNonWhitelisted: false, validateCustomDecorators: true, expectedType: dto });
  }

  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidInputError('INVALID_ARGUMENT', 'the request body must be a JSON object');
    }
    return super.transform(value, { ...metadata, metatype: this.dto });
  }
}

const RequestBody = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<FastifyRequest>().body,
);

/** The request body as `dto`, unknown fields ignored (ApiBody documents it). */
export const OkepBody = (dto: Type): ParameterDecorator => RequestBody(undefined, new IgnoreUnknownFieldsPipe(dto));
