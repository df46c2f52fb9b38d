import { ValidateIf } from 'class-validator';

/**
 * An optional body field: absent is fine, but JSON null is validated like any other value (and
 * so refused by the type check), unlike class-validator's IsOptional, which lets null through.
 */
export const OptionalField = () => ValidateIf((_, value) => value !== undefined);
