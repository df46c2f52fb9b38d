import { ValidationPipe, type ArgumentMetadata, type ValidationError as ClassValidationError } from '@nestjs/common';
import { ValidationError } from '@ipledger/domain';

function describe(errors: ClassValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    return [...Object.values(e.constraints ?? {}).map((text) => text.replace(e.property, path)), ...describe(e.children ?? [], path)];
  });
}

const isPlainObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Unknown fields and wrong JSON types are refused before any command runs.
 *
 * A JSON object inside a body is a free-form map (labels), checked by the domain. It passes
 * through untouched: class-transformer and Nest's prototype-key stripping would drop keys such
 * as "constructor", "prototype" and "__proto__", which are valid Kubernetes label keys.
 * Validation sees an empty stand-in, so `IsObject` and unknown-field checks still apply.
 */
class BodyMapsValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body' || !isPlainObject(value)) return super.transform(value, metadata);
    const maps = Object.entries(value).filter(([key, field]) => !PROTOTYPE_KEYS.has(key) && isPlainObject(field));
    const standIn: Record<string, unknown> = { ...value };
    for (const [key] of maps) standIn[key] = {};
    const entity = (await super.transform(standIn, metadata)) as object;
    for (const [key, map] of maps) Object.defineProperty(entity, key, { value: map, enumerable: true, writable: true, configurable: true });
    return entity;
  }
}

export const validationPipe = new BodyMapsValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  exceptionFactory: (errors) => new ValidationError('INVALID_ARGUMENT', describe(errors).join('; ')),
});
