import { InvalidInputError } from '../errors/domain-error';
import { validateLabelKey, validateLabels, validateLabelValue } from './labels';

function labelError(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('INVALID_LABEL');
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError');
}

const name63 = 'a'.repeat(63);
const name64 = 'a'.repeat(64);
// Three 63-character labels and one of 61, joined by dots: exactly the 253-character maximum.
const prefix253 = [name63, name63, name63, 'a'.repeat(61)].join('.');

describe('validateLabelKey', () => {
  it.each([
    'a',
    'Z',
    '9',
    'app',
    'App.Name_v-1',
    name63,
    'example.com/name',
    'kubernetes.io/hostname',
    'topology.kubernetes.io/zone',
    'a/b',
    '0-a.b-9/X',
    `${prefix253}/name`,
    `example.com/${name63}`,
    'in',
    'constructor',
  ])('accepts %j', (key) => {
    expect(() => validateLabelKey(key)).not.toThrow();
  });

  it.each([
    ['', 'name part must not be empty'],
    [name64, 'name part must be no more than 63 characters'],
    ['-bad', 'name part must start and end with an alphanumeric character'],
    ['bad-', 'name part must start and end with an alphanumeric character'],
    ['_bad', 'name part must start and end with an alphanumeric character'],
    ['.bad', 'name part must start and end with an alphanumeric character'],
    ['a b', `name part must consist of alphanumeric characters, '-', '_' or '.' (found " ")`],
    ['zoné', `name part must consist of alphanumeric characters, '-', '_' or '.' (found "é")`],
    ['a:b', `name part must consist of alphanumeric characters, '-', '_' or '.' (found ":")`],
    ['/name', 'prefix part must not be empty'],
    ['example.com/', 'name part must not be empty'],
    [`example.com/${name64}`, 'name part must be no more than 63 characters'],
    ['a/b/c', "must contain at most one '/'"],
    [`${prefix253}a/name`, 'prefix part must be no more than 253 characters'],
    ['Example.com/name', `prefix part must consist of lower case alphanumeric characters, '-' or '.' (found "E")`],
    ['ex_ample.com/name', `prefix part must consist of lower case alphanumeric characters, '-' or '.' (found "_")`],
    ['-example.com/name', 'prefix part must start and end with a lower case alphanumeric character'],
    ['example..com/name', "prefix part must start and end each '.'-separated part with a lower case alphanumeric character"],
    ['example.-com/name', "prefix part must start and end each '.'-separated part with a lower case alphanumeric character"],
    ['example.com./name', 'prefix part must start and end with a lower case alphanumeric character'],
  ])('rejects %j: %s', (key, rule) => {
    const error = labelError(() => validateLabelKey(key));
    expect(error.message).toContain(`label key ${JSON.stringify(key)} is invalid: `);
    expect(error.message).toContain(rule);
  });

  it('states the rule in the message', () => {
    expect(labelError(() => validateLabelKey('-bad')).message).toBe(
      'label key "-bad" is invalid: name part must start and end with an alphanumeric character',
    );
  });
});

describe('validateLabelValue', () => {
  it.each(['', 'a', 'Z9', 'v1.2.3', 'a-b_c.d', name63])('accepts %j', (value) => {
    expect(() => validateLabelValue('k', value)).not.toThrow();
  });

  it.each([
    [name64, 'must be no more than 63 characters'],
    ['-a', 'must start and end with an alphanumeric character'],
    ['a.', 'must start and end with an alphanumeric character'],
    ['a/b', `must consist of alphanumeric characters, '-', '_' or '.' (found "/")`],
    [' ', `must consist of alphanumeric characters, '-', '_' or '.' (found " ")`],
  ])('rejects %j: %s', (value, rule) => {
    expect(labelError(() => validateLabelValue('tier', value)).message).toBe(
      `label value ${JSON.stringify(value)} for key "tier" is invalid: ${rule}`,
    );
  });
});

describe('validateLabels', () => {
  it('returns a copy of a valid label map', () => {
    const input = { 'kubernetes.io/hostname': 'node-1', zone: '', Tier: 'A_1' };
    const result = validateLabels(input);
    expect(result).toEqual(input);
    expect(result).not.toBe(input);
  });

  it('accepts an empty map and a null-prototype map', () => {
    expect(validateLabels({})).toEqual({});
    const bare = Object.assign(Object.create(null) as Record<string, string>, { a: 'b' });
    expect(validateLabels(bare)).toEqual({ a: 'b' });
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'a=b'],
    ['a number', 1],
    ['an array', [['a', 'b']]],
    ['a Map', new Map([['a', 'b']])],
    [
      'a class instance',
      new (class Labelled {
        a = 'b';
      })(),
    ],
  ])('rejects %s', (_, input) => {
    expect(labelError(() => validateLabels(input, 'node labels')).message).toBe(
      'node labels must be an object mapping label keys to string values',
    );
  });

  it.each([
    [{ a: 1 }, 'number'],
    [{ a: null }, 'null'],
    [{ a: true }, 'boolean'],
    [{ a: ['b'] }, 'object'],
  ])('rejects non-string value in %j', (input, type) => {
    expect(labelError(() => validateLabels(input)).message).toBe(`labels: value of label "a" must be a string, got ${type}`);
  });

  it('rejects a bad key or value, quoting it', () => {
    expect(labelError(() => validateLabels({ ok: 'x', '-bad': 'x' })).message).toBe(
      'label key "-bad" is invalid: name part must start and end with an alphanumeric character',
    );
    expect(labelError(() => validateLabels({ zone: 'eu west' })).message).toBe(
      `label value "eu west" for key "zone" is invalid: must consist of alphanumeric characters, '-', '_' or '.' (found " ")`,
    );
  });
});
