import { ValidationError } from '../errors/domain-error';
import { type Labels, labelKeyProblem, labelValueProblem } from './labels';
import { type Token, tokenize } from './selector-lexer';

/**
 * A selector is evaluated for every pool it may match: bound its size so that one request cannot
 * hold a database core (Kubernetes sets no limit; real pool and node selectors use a handful).
 */
export const MAX_SELECTOR_LENGTH = 4096;
export const MAX_SELECTOR_REQUIREMENTS = 64;

/** `==` parses to `=`: Kubernetes treats them as the same operator. */
export type Operator = 'in' | 'notin' | 'exists' | 'doesnotexist' | '=' | '!=';

/**
 * One comma-separated term of a selector. `values` is empty for exists/doesnotexist, holds exactly
 * one value for `=`/`!=`, and is sorted and duplicate-free for in/notin.
 */
export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/**
 * A parsed Kubernetes label selector (the syntax of `kubectl get -l`): requirements ANDed together.
 * Parsing, matching and the canonical text follow k8s.io/apimachinery/pkg/labels/selector.go, so a
 * pool's node selector selects exactly the nodes Kubernetes itself would; only the numeric `<`/`>`
 * operators are rejected.
 */
export class LabelSelector {
  readonly requirements: readonly Requirement[];

  private constructor(requirements: Requirement[]) {
    // Sorted by key like Kubernetes so that equal selectors print identically. Array#sort is stable,
    // so requirements on the same key keep their written order.
    const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    // Selectors are shared values; freezing stops one holder from changing what another matches.
    this.requirements = Object.freeze(sorted.map(freezeRequirement));
  }

  /** The empty (or all-whitespace) selector matches every label set. */
  static parse(text: string): LabelSelector {
    return new LabelSelector(new SelectorParser(text).parse());
  }

  matches(labels: Labels): boolean {
    return this.requirements.every((requirement) => requirementMatches(requirement, labels));
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** Canonical form; parsing it yields an equivalent selector. */
  toString(): string {
    return this.requirements.map(formatRequirement).join(',');
  }
}

function freezeRequirement(requirement: Requirement): Requirement {
  Object.freeze(requirement.values);
  return Object.freeze(requirement);
}

function requirementMatches({ key, operator, values }: Requirement, labels: Labels): boolean {
  // Own properties only: a label map must not "have" keys such as "constructor" via its prototype.
  const has = Object.hasOwn(labels, key);
  switch (operator) {
    case 'exists':
      return has;
    case 'doesnotexist':
      return !has;
    case '=':
    case 'in':
      return has && values.includes(labels[key]);
    // As in Kubernetes, a negative requirement holds when the key is absent.
    case '!=':
    case 'notin':
      return !has || !values.includes(labels[key]);
  }
}

function formatRequirement({ key, operator, values }: Requirement): string {
  switch (operator) {
    case 'exists':
      return key;
    case 'doesnotexist':
      return `!${key}`;
    case '=':
    case '!=':
      return `${key}${operator}${values[0]}`;
    case 'in':
    case 'notin':
      return `${key} ${operator} (${values.join(',')})`;
  }
}

/** Recursive descent over the grammar, mirroring Kubernetes' Parser method for method. */
class SelectorParser {
  private readonly tokens: Token[];
  private index = 0;

  constructor(private readonly text: string) {
    if (text.length > MAX_SELECTOR_LENGTH) this.raise(`longer than ${MAX_SELECTOR_LENGTH} characters (${text.length})`);
    this.tokens = tokenize(text);
  }

  parse(): Requirement[] {
    const first = this.peek();
    if (first.kind === 'end') return [];
    if (!startsRequirement(first)) this.fail(first, 'expected "!", a label key or end of input');
    const requirements: Requirement[] = [];
    for (;;) {
      requirements.push(this.requirement());
      if (requirements.length > MAX_SELECTOR_REQUIREMENTS) this.raise(`more than ${MAX_SELECTOR_REQUIREMENTS} requirements`);
      const separator = this.next();
      if (separator.kind === 'end') return requirements;
      if (separator.kind !== ',') this.fail(separator, 'expected "," or end of input');
      const following = this.peek();
      if (!startsRequirement(following)) this.fail(following, 'expected "!" or a label key after ","');
    }
  }

  private requirement(): Requirement {
    let keyToken = this.next();
    const negated = keyToken.kind === '!';
    if (negated) keyToken = this.next();
    if (keyToken.kind !== 'word') this.fail(keyToken, 'expected a label key');
    const key = keyToken.text;
    this.check(keyToken, labelKeyProblem(key));
    // Kubernetes ends "!key" here whatever follows, so "!a=b" fails at "=" rather than parsing.
    if (negated) return { key, operator: 'doesnotexist', values: [] };
    const after = this.peek();
    if (after.kind === ',' || after.kind === 'end') return { key, operator: 'exists', values: [] };

    const operatorToken = this.next();
    const operator = binaryOperator(operatorToken);
    if (operator === undefined) {
      this.fail(operatorToken, 'expected an operator ("=", "==", "!=", "in" or "notin")');
    }
    const values = operator === 'in' || operator === 'notin' ? this.valueSet(key) : [this.exactValue(key)];
    return { key, operator, values };
  }

  /** "a=" and "a!=" compare against the empty value. */
  private exactValue(key: string): string {
    const token = this.peek();
    if (token.kind === ',' || token.kind === 'end') return '';
    this.next();
    if (token.kind !== 'word') this.fail(token, 'expected a value');
    this.check(token, labelValueProblem(key, token.text));
    return token.text;
  }

  /**
   * "(v1,v2)". Missing values between commas are the empty value, and "()" is the set {""}, not an
   * empty set. Ported literally from Kubernetes' parseValues/parseIdentifiersList, including its
   * quirk that an even run of commas before ")" (as in "(a,,)") is rejected while "(a,,b)" is not.
   */
  private valueSet(key: string): string[] {
    const open = this.next();
    if (open.kind !== '(') this.fail(open, 'expected "("');
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return [''];
    }
    if (first.kind !== 'word' && first.kind !== ',') this.fail(first, 'expected a value, "," or ")"');

    const values: string[] = [];
    const words: Token[] = [];
    for (;;) {
      const token = this.next();
      if (token.kind === 'word') {
        words.push(token);
        values.push(token.text);
        const after = this.peek();
        if (after.kind === ')') break;
        if (after.kind !== ',') this.fail(after, 'expected "," or ")"');
      } else if (token.kind === ',') {
        if (values.length === 0) values.push(''); // "(,"
        const after = this.peek();
        if (after.kind === ')') {
          values.push(''); // ",)"
          break;
        }
        if (after.kind === ',') {
          this.next();
          values.push(''); // ",,"
        }
      } else {
        this.fail(token, 'expected a value or ","');
      }
    }
    this.next(); // the ")" that ended the loop
    // Kubernetes validates values only once the list has parsed, so syntax errors are reported first.
    for (const word of words) this.check(word, labelValueProblem(key, word.text));
    return [...new Set(values)].sort();
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  /** Stays on the final `end` token, so a caller can never read past it. */
  private next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private check(token: Token, problem: string | undefined): void {
    if (problem !== undefined) this.raise(`${problem} at position ${token.position}`);
  }

  private fail(token: Token, expected: string): never {
    const found = token.kind === 'end' ? 'end of input' : JSON.stringify(token.text);
    return this.raise(`${expected} at position ${token.position}, found ${found}`);
  }

  private raise(detail: string): never {
    // a refused selector may be long: quote enough of it to recognise it
    const shown = this.text.length > 120 ? `${this.text.slice(0, 120)}…` : this.text;
    throw new ValidationError('INVALID_SELECTOR', `invalid selector ${JSON.stringify(shown)}: ${detail}`);
  }
}

function startsRequirement(token: Token): boolean {
  return token.kind === 'word' || token.kind === '!';
}

/** `in`/`notin` are keywords only here; as keys or values they are ordinary words, as in Kubernetes. */
function binaryOperator(token: Token): Operator | undefined {
  switch (token.kind) {
    case '=':
    case '==':
      return '=';
    case '!=':
      return '!=';
    case 'word':
      return token.text === 'in' || token.text === 'notin' ? token.text : undefined;
    default:
      return undefined;
  }
}
