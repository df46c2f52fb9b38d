import fc from 'fast-check';
import { InvalidInputError } from '../errors/domain-error';
import { LabelSelector, type Operator, type Requirement } from './label-selector';
import type { Labels } from './labels';

const parse = (text: string) => LabelSelector.parse(text);
const req = (key: string, operator: Operator, values: string[] = []): Requirement => ({ key, operator, values });

function selectorError(text: string): string {
  try {
    LabelSelector.parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('INVALID_SELECTOR');
    return (error as InvalidInputError).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('LabelSelector.parse', () => {
  it.each([
    ['zone', [req('zone', 'exists')]],
    ['!zone', [req('zone', 'doesnotexist')]],
    ['zone=a', [req('zone', '=', ['a'])]],
    ['zone==a', [req('zone', '=', ['a'])]],
    ['zone!=a', [req('zone', '!=', ['a'])]],
    ['zone in (b,a)', [req('zone', 'in', ['a', 'b'])]],
    ['zone notin (b, a, b)', [req('zone', 'notin', ['a', 'b'])]],
    ['topology.kubernetes.io/zone=eu-1a', [req('topology.kubernetes.io/zone', '=', ['eu-1a'])]],
  ])('parses %j', (text, requirements) => {
    expect(parse(text).requirements).toEqual(requirements);
  });

  it.each([
    ['zone=', [req('zone', '=', [''])]],
    ['zone==', [req('zone', '=', [''])]],
    ['zone!=', [req('zone', '!=', [''])]],
    ['zone=,a', [req('a', 'exists'), req('zone', '=', [''])]],
    ['zone in ()', [req('zone', 'in', [''])]],
    ['zone notin ( )', [req('zone', 'notin', [''])]],
    ['zone in (,)', [req('zone', 'in', [''])]],
    ['zone in (,a)', [req('zone', 'in', ['', 'a'])]],
    ['zone in (a,)', [req('zone', 'in', ['', 'a'])]],
    ['zone in (b,,c)', [req('zone', 'in', ['', 'b', 'c'])]],
    ['zone in (,,,)', [req('zone', 'in', [''])]],
  ])('allows empty values where Kubernetes does: %j', (text, requirements) => {
    expect(parse(text).requirements).toEqual(requirements);
  });

  it('parses the example from the Kubernetes grammar', () => {
    expect(parse('x in (foo,,baz),y,z notin ()').requirements).toEqual([
      req('x', 'in', ['', 'baz', 'foo']),
      req('y', 'exists'),
      req('z', 'notin', ['']),
    ]);
  });

  it('treats "in" and "notin" as plain words outside the operator position', () => {
    expect(parse('in in (in,notin)').requirements).toEqual([req('in', 'in', ['in', 'notin'])]);
    expect(parse('notin=in,!in').requirements).toEqual([req('in', 'doesnotexist'), req('notin', '=', ['in'])]);
  });

  it.each(['   ', '', '\t\r\n'])('parses %j as the empty selector', (text) => {
    const selector = parse(text);
    expect(selector.isEmpty()).toBe(true);
    expect(selector.toString()).toBe('');
  });

  it.each([
    'a=b,c in (x,y),!d,e',
    ' a = b , c in ( x , y ) , ! d , e ',
    'a==b,c in(x,y),!d,e',
    '\ta\t==\tb\t,\tc\tin\t(\tx\t,\ty\t)\t,\t!\td\t,\te\t',
    'e,!d,c in (y,x,y),a=b',
    'a=b,\nc  in  (x,y),\r\n!d,\ne\n',
  ])('tolerates whitespace and spelling variants: %j', (text) => {
    expect(parse(text).toString()).toBe('a=b,c in (x,y),!d,e');
  });

  it('sorts requirements by key, keeping the written order within a key', () => {
    expect(parse('b=1,!c,a in (z,y),a=2').toString()).toBe('a in (y,z),a=2,b=1,!c');
  });

  it('is not empty when it has requirements', () => {
    expect(parse('a').isEmpty()).toBe(false);
  });

  it('freezes its requirements', () => {
    const selector = parse('a in (b)');
    expect(() => (selector.requirements as Requirement[]).push(req('x', 'exists'))).toThrow(TypeError);
    expect(() => selector.requirements[0].values.push('c')).toThrow(TypeError);
    expect(() => {
      selector.requirements[0].operator = 'notin';
    }).toThrow(TypeError);
  });
});

describe('LabelSelector.parse errors', () => {
  it('gives the position and what was expected', () => {
    expect(selectorError('zone in (a')).toBe('invalid selector "zone in (a": expected "," or ")" at position 11, found end of input');
  });

  it.each([
    ['zone in a)', 9, 'expected "("', '"a"'],
    ['=b', 1, 'expected "!", a label key or end of input', '"="'],
    ['!=b', 1, 'expected "!", a label key or end of input', '"!="'],
    ['a!b', 2, 'expected an operator ("=", "==", "!=", "in" or "notin")', '"!"'],
    ['a>1', 2, 'expected an operator ("=", "==", "!=", "in" or "notin")', '">"'],
    ['a<1', 2, 'expected an operator ("=", "==", "!=", "in" or "notin")', '"<"'],
    [',a=b', 1, 'expected "!", a label key or end of input', '","'],
    ['a=b,', 5, 'expected "!" or a label key after ","', 'end of input'],
    ['a,,b', 3, 'expected "!" or a label key after ","', '","'],
    ['a notin', 8, 'expected "("', 'end of input'],
    ['!a=b', 3, 'expected "," or end of input', '"="'],
    ['a=b c', 5, 'expected "," or end of input', '"c"'],
    ['a==b==c', 5, 'expected "," or end of input', '"=="'],
    ['a=b>c', 4, 'expected "," or end of input', '">"'],
    ['a in (b) c', 10, 'expected "," or end of input', '"c"'],
    ['a===b', 4, 'expected a value', '"="'],
    ['a=(b)', 3, 'expected a value', '"("'],
    ['!', 2, 'expected a label key', 'end of input'],
    ['! ,', 3, 'expected a label key', '","'],
    ['a in (', 7, 'expected a value, "," or ")"', 'end of input'],
    ['a in (=)', 7, 'expected a value, "," or ")"', '"="'],
    ['a in (b c)', 9, 'expected "," or ")"', '"c"'],
    ['a in (b,=)', 9, 'expected a value or ","', '"="'],
    // Kubernetes' list parser rejects an even run of commas before ")"; kept for parity.
    ['a in (b,,)', 10, 'expected a value or ","', '")"'],
    ['a in (,,)', 9, 'expected a value or ","', '")"'],
  ])('rejects %j at position %d', (text, position, expected, found) => {
    expect(selectorError(text)).toBe(`invalid selector ${JSON.stringify(text)}: ${expected} at position ${position}, found ${found}`);
  });

  it.each([
    ['-a=b', 1, 'label key "-a" is invalid: name part must start and end with an alphanumeric character'],
    ['x, !a/b/c', 5, `label key "a/b/c" is invalid: must contain at most one '/'`],
    [`${'k'.repeat(64)}`, 1, 'label key "kkkk'],
    ['a=-b', 3, 'label value "-b" for key "a" is invalid: must start and end with an alphanumeric character'],
    ['a = b/c', 5, `label value "b/c" for key "a" is invalid: must consist of alphanumeric characters, '-', '_' or '.' (found "/")`],
    ['a in (ok,-bad)', 10, 'label value "-bad" for key "a" is invalid'],
    [`a notin (${'v'.repeat(64)})`, 10, 'is invalid: must be no more than 63 characters'],
  ])('rejects invalid keys and values in %j at position %d', (text, position, problem) => {
    const message = selectorError(text);
    expect(message.startsWith(`invalid selector ${JSON.stringify(text)}: `)).toBe(true);
    expect(message).toContain(problem);
    expect(message).toMatch(new RegExp(`at position ${position}$`));
  });

  it('reports syntax errors in a value list before invalid values, like Kubernetes', () => {
    expect(selectorError('a in (-bad, ok')).toContain('expected "," or ")" at position 15');
  });
});

describe('LabelSelector.matches', () => {
  const labels: Labels = { zone: 'a', tier: '' };

  it.each([
    ['', true],
    ['zone', true],
    ['x', false],
    ['!zone', false],
    ['!x', true],
    ['zone=a', true],
    ['zone==a', true],
    ['zone=b', false],
    ['x=a', false],
    ['tier=', true],
    ['x=', false],
    ['zone!=a', false],
    ['zone!=b', true],
    ['x!=a', true],
    ['tier!=', false],
    ['zone in (a,b)', true],
    ['zone in (b,c)', false],
    ['x in (a)', false],
    ['tier in ()', true],
    ['zone notin (a,b)', false],
    ['zone notin (b)', true],
    ['x notin (a)', true],
    ['tier notin (,x)', false],
    ['zone=a,tier', true],
    ['zone=a,x', false],
    ['zone=a,zone=b', false],
  ])('%j on {zone: "a", tier: ""} is %s', (text, expected) => {
    expect(parse(text).matches(labels)).toBe(expected);
  });

  it('ignores keys inherited from the prototype', () => {
    expect(parse('constructor').matches({})).toBe(false);
    expect(parse('!constructor').matches({})).toBe(true);
    expect(parse('toString notin (x)').matches({})).toBe(true);
    expect(parse('constructor=x').matches({ constructor: 'x' })).toBe(true);
  });
});

describe('LabelSelector properties', () => {
  const namePart = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
  const subdomain = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?){0,3}$/);
  // Mostly a small pool, so requirements and label maps share keys and values often enough to match.
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('a', 'b', 'zone', 'in', 'notin', 'constructor', 'example.com/a') },
    { weight: 1, arbitrary: fc.tuple(fc.option(subdomain), namePart).map(([p, n]) => (p === null ? n : `${p}/${n}`)) },
  );
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('', 'x', 'y', 'in', 'notin', 'A_1.b-2') },
    { weight: 1, arbitrary: fc.stringMatching(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/) },
  );
  const requirement: fc.Arbitrary<Requirement> = fc.oneof(
    fc.record({ key, operator: fc.constantFrom<Operator>('exists', 'doesnotexist'), values: fc.constant<string[]>([]) }),
    fc.record({ key, operator: fc.constantFrom<Operator>('=', '!='), values: value.map((v) => [v]) }),
    fc.record({
      key,
      operator: fc.constantFrom<Operator>('in', 'notin'),
      values: fc.uniqueArray(value, { minLength: 1, maxLength: 4 }),
    }),
  );
  const space = fc.constantFrom('', '', ' ', '  ', '\t', '\n', ' \r\n ');
  /** A requirement plus random but legal formatting: whitespace slots and the "==" spelling. */
  interface Written {
    requirement: Requirement;
    spaces: string[];
    doubleEquals: boolean;
  }
  const written: fc.Arbitrary<Written> = fc.record({
    requirement,
    spaces: fc.array(space, { minLength: 8, maxLength: 8 }),
    doubleEquals: fc.boolean(),
  });
  const labelMap = fc.dictionary(key, value, { maxKeys: 6 });

  function write({ requirement: r, spaces: s, doubleEquals }: Written): string {
    switch (r.operator) {
      case 'exists':
        return `${s[0]}${r.key}${s[1]}`;
      case 'doesnotexist':
        return `${s[0]}!${s[1]}${r.key}${s[2]}`;
      case '=':
      case '!=': {
        const operator = r.operator === '=' && doubleEquals ? '==' : r.operator;
        return `${s[0]}${r.key}${s[1]}${operator}${s[2]}${r.values[0]}${s[3]}`;
      }
      case 'in':
      case 'notin': {
        // A word must be followed by whitespace before the "in"/"notin" keyword.
        const list = r.values.join(`${s[4]},${s[5]}`);
        return `${s[0]}${r.key}${s[1] || ' '}${r.operator}${s[2]}(${s[3]}${list}${s[6]})${s[7]}`;
      }
    }
  }

  /** Kubernetes' semantics restated: each negative operator is the negation of a positive one. */
  function naiveMatches(requirements: readonly Requirement[], labels: Labels): boolean {
    const present = new Map(Object.entries(labels));
    const holds = (key: string, operator: Operator, values: string[]): boolean => {
      switch (operator) {
        case 'exists':
          return present.has(key);
        case '=':
        case 'in':
          return present.has(key) && values.includes(present.get(key) as string);
        case 'doesnotexist':
          return !holds(key, 'exists', values);
        case '!=':
          return !holds(key, '=', values);
        case 'notin':
          return !holds(key, 'in', values);
      }
    };
    return requirements.every(({ key: k, operator, values }) => holds(k, operator, values));
  }

  it('parses written requirements into the model, and matches like the naive semantics', () => {
    fc.assert(
      fc.property(fc.array(written, { maxLength: 5 }), fc.array(labelMap, { maxLength: 8 }), (list, labelMaps) => {
        const requirements = list.map((w) => w.requirement);
        const selector = parse(list.map(write).join(','));
        const expected = [...requirements]
          .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
          .map((r) => ({ ...r, values: [...r.values].sort() }));
        expect(selector.requirements).toEqual(expected);
        for (const labels of labelMaps) {
          expect(selector.matches(labels)).toBe(naiveMatches(requirements, labels));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips through toString() to an equivalent selector', () => {
    fc.assert(
      fc.property(fc.array(written, { maxLength: 5 }), fc.array(labelMap, { maxLength: 8 }), (list, labelMaps) => {
        const selector = parse(list.map(write).join(','));
        const reparsed = parse(selector.toString());
        expect(reparsed.requirements).toEqual(selector.requirements);
        expect(reparsed.toString()).toBe(selector.toString());
        for (const labels of labelMaps) {
          expect(reparsed.matches(labels)).toBe(selector.matches(labels));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('either parses or fails with a position inside the input, for arbitrary text', () => {
    const grammarish = fc
      .array(fc.constantFrom('a', 'b', 'in', 'notin', ' ', '=', '!', '(', ')', ',', '<', '>', '-', '/', 'x.io'), {
        maxLength: 12,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(grammarish, fc.string()), (text) => {
        let selector: LabelSelector;
        try {
          selector = parse(text);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInputError);
          expect((error as InvalidInputError).code).toBe('INVALID_SELECTOR');
          const position = Number(/at position (\d+)/.exec((error as Error).message)?.[1]);
          expect(position).toBeGreaterThanOrEqual(1);
          expect(position).toBeLessThanOrEqual(text.length + 1);
          return;
        }
        expect(parse(selector.toString()).toString()).toBe(selector.toString());
      }),
      { numRuns: 2000 },
    );
  });
});
