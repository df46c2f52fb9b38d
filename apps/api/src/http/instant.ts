import { ValidateBy, type ValidationOptions } from 'class-validator';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * Why `text` is not an RFC 3339 instant this service can look up, or undefined. Stricter than
 * class-validator's IsRFC3339, which takes 2021-02-29 and 23:59:60: the log has no leap seconds
 * (PostgreSQL refuses them), and an impossible date is a typo, not a time.
 */
export function instantProblem(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return 'is not an RFC 3339 date-time such as 2026-11-29T14:02:00Z';
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12) return `has month ${m[2]}`;
  if (day < 1 || day > daysIn(year, month)) return `has day ${m[3]}, but ${m[1]}-${m[2]} has ${daysIn(year, month)} days`;
  if (hour > 23 || minute > 59) return `has time ${m[4]}:${m[5]}`;
  if (second === 60) return 'is a leap second (:60); the event log has none: use :59';
  if (second > 59) return `has second ${m[6]}`;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return `has offset ${m[8]}`;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms) || year < 1) return 'is out of range';
  return undefined;
}

export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInstant',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && instantProblem(value) === undefined,
        defaultMessage: (args) =>
          `${args?.property} ${typeof args?.value === 'string' ? `"${args.value.slice(0, 64)}" ${instantProblem(args.value)}` : 'must be a string'}`,
      },
    },
    options,
  );
}
