import { wholeNumber } from './env';

describe('wholeNumber', () => {
  it('falls back when the variable is unset or empty', () => {
    expect(wholeNumber({}, 'N', 7)).toBe(7);
    expect(wholeNumber({ N: '' }, 'N', 7)).toBe(7);
  });

  it('reads a whole number within the bounds', () => {
    expect(wholeNumber({ N: '0' }, 'N', 7)).toBe(0);
    expect(wholeNumber({ N: '5' }, 'N', 7, { min: 1, max: 5 })).toBe(5);
  });

  it('refuses fractions, text and values out of bounds, naming the variable', () => {
    expect(() => wholeNumber({ N: '1.5' }, 'N', 7)).toThrow('N "1.5" must be a whole number of 0 or more');
    expect(() => wholeNumber({ N: 'ten' }, 'N', 7)).toThrow(/N "ten"/);
    expect(() => wholeNumber({ N: '1' }, 'N', 7, { min: 2 })).toThrow('must be a whole number of 2 or more');
    expect(() => wholeNumber({ N: '6' }, 'N', 7, { min: 1, max: 5 })).toThrow('N "6" must be a whole number from 1 to 5');
  });
});
