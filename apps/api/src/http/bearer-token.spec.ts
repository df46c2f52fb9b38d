import { bearerToken } from './bearer-token';

const one = (value: string) => bearerToken(['Host', 'x', 'Authorization', value]);

describe('bearerToken (RFC 7235, RFC 6750)', () => {
  it('takes the scheme in any case, and one token of the b64token characters', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) expect(one(`${scheme} tok`)).toBe('tok');
    expect(one('Bearer  a-b.c_d~e+f/g==')).toBe('a-b.c_d~e+f/g==');
    expect(one(' Bearer tok\t')).toBe('tok');
    expect(bearerToken(['authorization', 'Bearer tok'])).toBe('tok');
  });

  it('refuses trailing data, a second token, another scheme, no token, and a character a token may not hold', () => {
    for (const value of [
      'Bearer tok garbage',
      'Bearer tok,Bearer other',
      'Bearer tok, other',
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer ',
      'Bearertok',
      'tok',
      'Bearer to=k',
      'Bearer tok;x',
      'Bearer tök',
    ])
      expect({ value, token: one(value) }).toEqual({ value, token: null });
  });

  it('refuses two Authorization fields, whatever they hold, and none', () => {
    expect(bearerToken(['Authorization', 'Bearer tok', 'authorization', 'Bearer tok'])).toBeNull();
    expect(bearerToken(['Authorization', 'Bearer tok', 'Authorization', 'Bearer other'])).toBeNull();
    expect(bearerToken(['Host', 'x'])).toBeNull();
    expect(bearerToken([])).toBeNull();
  });
});
