import { ValidationPipe, type ValidationError as ClassValidationError } from '@nestjs/common';
import { ValidationError } from '@ipledger/domain';

function describe(errors: ClassValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    return [...Object.values(e.constraints ?? {}).map((text) => text.replace(e.property, path)), ...describe(e.children ?? [], path)];
  });
}

/** Unknown fields and wrong JSON types are refused before any command runs. */
export const validationPipe = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  exceptionFactory: (errors) => new ValidationError('INVALID_ARGUMENT', describe(errors).join('; ')),
});
