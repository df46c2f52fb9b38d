import { ValidationPipe, type ArgumentMetadata, type ValidationError, type ValidationPipeOptions } from '@nestjs/common';
import { InvalidInputError } from '@ipledger/domain';
import { bodyCheckFor } from './body-schema';

/**
 * class-validator's messages, but for a required field that is missing: that one fails every rule
 * it has ("node must be shorter than or equal to 253 characters; node must be a string"), which
 * says nothing of what is wrong, so it is said as "node is required".
 */
function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    if (e.value === undefined && e.constraints) return [`${path} is required`];
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
 * A DTO marked `@CheckedBySchema()` (body-schema.ts; a hot route's body, the path parameters) is
 * checked by its compiled schema instead and handed on as the object it was.
 */
class BodyMapsValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const check = bodyCheckFor(metadata.metatype);
    // a route's path parameters come as an object without a prototype
    if (check && (isPlainObject(value) || (metadata.type === 'param' && typeof value === 'object' && value !== null))) {
      const problems = check(value);
      if (problems.length) throw new InvalidInputError('INVALID_ARGUMENT', problems.join('; '));
      return value;
    }
    if (metadata.type !== 'body' || !isPlainObject(value)) return super.transform(value, metadata);
    const maps = Object.entries(value).filter(([key, field]) => !PROTOTYPE_KEYS.has(key) && isPlainObject(field));
    const standIn: Record<string, unknown> = { ...value };
    for (const [key] of maps) standIn[key] = {};
    const entity = (await super.transform(standIn, metadata)) as object;
    for (const [key, map] of maps) Object.defineProperty(entity, key, { value: map, enumerable: true, writable: true, configurable: true });
    return entity;
  }
}

/** class-validator's settings (also body-schema.spec.ts's reference for the compiled checks) */
export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  exceptionFactory: (errors) => new InvalidInputError('INVALID_ARGUMENT', describe(errors).join('; ')),
};

export const validationPipe = new BodyMapsValidationPipe(VALIDATION_OPTIONS);
