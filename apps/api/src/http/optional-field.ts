import { ValidateIf } from 'class-validator';

/** The condition of OptionalField: validated unless absent (body-schema.ts recognises it). */
export const PRESENT = (_: object, value: unknown): boolean => value !== undefined;

/**
 * An optional body field: absent is fine, but JSON null is validated like any other value (and
 * so refused by the type check), unlike class-validator's IsOptional, which lets null through.
 */
export const OptionalField = () => ValidateIf(PRESENT);
