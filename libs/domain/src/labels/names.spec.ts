import { InvalidInputError } from '../errors/domain-error';
import { validateDns1123Label, validateDns1123Subdomain } from './names';

function nameError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('INVALID_NAME');
    return (error as InvalidInputError).message;
  }
  throw new Error('expected an InvalidInputError');
}

const label63 = 'a'.repeat(63);

describe('validateDns1123Label', () => {
  it.each(['a', '0', 'pool-1', 'a-b-c', '1a', label63])('accepts %j', (name) => {
    expect(() => validateDns1123Label(name, 'pool name')).not.toThrow();
  });

  it.each([
    ['', 'must not be empty'],
    ['a'.repeat(64), 'must be no more than 63 characters'],
    ['Pool', `must consist of lower case alphanumeric characters or '-' (found "P")`],
    ['a.b', `must consist of lower case alphanumeric characters or '-' (found ".")`],
    ['a_b', `must consist of lower case alphanumeric characters or '-' (found "_")`],
    ['-a', 'must start and end with a lower case alphanumeric character'],
    ['a-', 'must start and end with a lower case alphanumeric character'],
  ])('rejects %j: %s', (name, rule) => {
    expect(nameError(() => validateDns1123Label(name, 'pool name'))).toBe(
      `pool name ${JSON.stringify(name)} is not a valid DNS-1123 label: ${rule}`,
    );
  });
});

describe('validateDns1123Subdomain', () => {
  const subdomain253 = [label63, label63, label63, 'a'.repeat(61)].join('.');

  it.each(['a', 'node-1', 'node-1.eu-west.example.com', subdomain253, `${'a'.repeat(100)}.b`])('accepts %j', (name) => {
    expect(() => validateDns1123Subdomain(name, 'node name')).not.toThrow();
  });

  it.each([
    ['', 'must not be empty'],
    [`${subdomain253}a`, 'must be no more than 253 characters'],
    ['Node-1', `must consist of lower case alphanumeric characters, '-' or '.' (found "N")`],
    ['node_1', `must consist of lower case alphanumeric characters, '-' or '.' (found "_")`],
    ['.node', 'must start and end with a lower case alphanumeric character'],
    ['node.', 'must start and end with a lower case alphanumeric character'],
    ['a..b', "must start and end each '.'-separated part with a lower case alphanumeric character"],
    ['a.-b', "must start and end each '.'-separated part with a lower case alphanumeric character"],
    ['a-.b', "must start and end each '.'-separated part with a lower case alphanumeric character"],
  ])('rejects %j: %s', (name, rule) => {
    expect(nameError(() => validateDns1123Subdomain(name, 'node name'))).toBe(
      `node name ${JSON.stringify(name)} is not a valid DNS-1123 subdomain: ${rule}`,
    );
  });
});
