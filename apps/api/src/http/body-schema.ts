import type { Type } from '@nestjs/common';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { PRESENT } from './optional-field';

/**
 * A body DTO's class-validator rules as a JSON schema, compiled once by ajv (Fastify's validator):
 * class-transformer and class-validator cost about 70 µs a request on the allocation route, the
 * compiled schema a few. The schema is generated from the DTO's own decorators, so the rules, the
 * limits and the messages stay those of class-validator (body-schema.spec.ts checks the two agree),
 * and the OpenAPI document is generated from the same class as before. A DTO opts in with
 * `@CheckedBySchema()`; one with a rule not known below fails at start-up.
 */

/** class-validator's message for each known rule, and what it adds to a property's schema. */
const RULES: Record<string, { message: (limit: unknown) => string; schema: (limit: unknown) => Record<string, unknown> }> = {
  isString: { message: () => 'must be a string', schema: () => ({ type: 'string' }) },
  isInt: { message: () => 'must be an integer number', schema: () => ({ type: 'integer' }) },
  isArray: { message: () => 'must be an array', schema: () => ({ type: 'array' }) },
  maxLength: { message: (n) => `must be shorter than or equal to ${String(n)} characters`, schema: (n) => ({ maxLength: n }) },
  arrayMaxSize: { message: (n) => `must contain no more than ${String(n)} elements`, schema: (n) => ({ maxItems: n }) },
};

/** ajv's keyword for each rule's failure, to find the rule behind an error. */
const KEYWORD: Record<string, string> = {
  isString: 'type',
  isInt: 'type',
  isArray: 'type',
  maxLength: 'maxLength',
  arrayMaxSize: 'maxItems',
};

interface Rule {
  name: string;
  limit: unknown;
  each: boolean;
}

/** A body's problems in class-validator's words, or none. */
export type BodyCheck = (body: object) => string[];

const ajv = new Ajv({ allErrors: true, strict: true });
const compiled = new Map<unknown, BodyCheck>();

/** A body DTO checked by its compiled schema instead of class-validator (the hot routes'). */
export const CheckedBySchema =
  (): ClassDecorator =>
  (dto): void => {
    const check = compile(getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false));
    if (!check) throw new Error(`${dto.name}: a validation rule body-schema.ts does not know`);
    compiled.set(dto, check);
  };

/** The compiled check of a DTO that opted in, or undefined. */
export const bodyCheckFor = (dto: Type | undefined): BodyCheck | undefined => compiled.get(dto);

function compile(metadata: ValidationMetadata[]): BodyCheck | null {
  const rules = new Map<string, Rule[]>();
  const optional = new Set<string>();
  for (const m of metadata) {
    if (m.type === 'conditionalValidation' && m.constraints?.[0] === PRESENT) optional.add(m.propertyName);
    else if (m.type === 'customValidation' && m.name && RULES[m.name] && !m.groups?.length && !m.message && !m.always)
      rules.set(m.propertyName, [...(rules.get(m.propertyName) ?? []), { name: m.name, limit: m.constraints?.[0], each: m.each ?? false }]);
    else return null;
  }
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [property, own] of rules) {
    const items = Object.assign({}, ...own.filter((r) => r.each).map((r) => RULES[r.name].schema(r.limit))) as Record<string, unknown>;
    const whole = Object.assign({}, ...own.filter((r) => !r.each).map((r) => RULES[r.name].schema(r.limit))) as Record<string, unknown>;
    // `each` rules apply to the items of an array (the DTOs always pair them with isArray)
    if (Object.keys(items).length && whole.type !== 'array') return null;
    properties[property] = Object.keys(items).length ? { ...whole, items } : whole;
  }
  const validate = ajv.compile({
    type: 'object',
    properties,
    required: [...rules.keys()].filter((p) => !optional.has(p)),
    additionalProperties: false,
  });
  return (body) => (validate(body) ? [] : messages(validate, rules));
}

function messages(validate: ValidateFunction, rules: Map<string, Rule[]>): string[] {
  const said = (rule: Rule, property: string) => `${rule.each ? 'each value in ' : ''}${property} ${RULES[rule.name].message(rule.limit)}`;
  return (validate.errors ?? []).flatMap((error: ErrorObject) => {
    if (error.keyword === 'additionalProperties') return [`property ${String(error.params.additionalProperty)} should not exist`];
    // as validation.pipe.ts says it: a missing property is missing, whatever its rules
    if (error.keyword === 'required') return [`${String(error.params.missingProperty)} is required`];
    const [property, item] = error.instancePath.split('/').slice(1);
    const rule = rules.get(property)!.find((r) => r.each === (item !== undefined) && KEYWORD[r.name] === error.keyword);
    return [rule ? said(rule, property) : `${property} ${error.message ?? 'is not valid'}`];
  });
}
