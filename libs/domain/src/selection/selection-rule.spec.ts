import { DomainError } from '../errors/domain-error';
import { selectionRule, type SelectionInput } from './selection-rule';

function refusal(input: SelectionInput, defaultMatchLabel: string | null = null): DomainError {
  try {
    selectionRule(input, defaultMatchLabel);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('selectionRule', () => {
  it.each([
    [{ pools: ['a'], poolSelector: 'x=y' }, 'pools, poolSelector'],
    [{ pools: ['a'], matchLabel: 'group' }, 'pools, matchLabel'],
    [{ poolSelector: 'x=y', matchLabel: 'group' }, 'poolSelector, matchLabel'],
    [{ pools: ['a'], poolSelector: 'x=y', matchLabel: 'group' }, 'pools, poolSelector, matchLabel'],
  ])('refuses more than one rule: %j', (input, names) => {
    const error = refusal(input, 'group');
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(`(got ${names})`);
  });

  it('pools: in order, duplicates dropped, names validated', () => {
    expect(selectionRule({ pools: ['b', 'a', 'b'] }, 'group')).toEqual({ kind: 'pools', names: ['b', 'a'] });
    expect(refusal({ pools: [] }).code).toBe('INVALID_ARGUMENT');
    expect(refusal({ pools: ['ok', 'Not_OK'] }).code).toBe('INVALID_NAME');
  });

  it('poolSelector: parsed, and the default match label does not apply', () => {
    const rule = selectionRule({ poolSelector: 'tier in (silver, gold)' }, 'group');
    expect(rule.kind).toBe('poolSelector');
    expect(rule.kind === 'poolSelector' && rule.selector.toString()).toBe('tier in (gold,silver)');
  });

  it.each(['tier in (', 'a b', 'x=y,,', 'x<3'])('refuses selector %j with INVALID_SELECTOR', (poolSelector) => {
    expect(refusal({ poolSelector }).code).toBe('INVALID_SELECTOR');
  });

  it('matchLabel: a given one wins over the default, and is validated', () => {
    expect(selectionRule({ matchLabel: 'example.com/group' }, 'group')).toEqual({ kind: 'matchLabel', key: 'example.com/group' });
    expect(refusal({ matchLabel: 'bad key' }).code).toBe('INVALID_LABEL');
  });

  it('the default match label applies only when no rule is given', () => {
    expect(selectionRule({}, 'group')).toEqual({ kind: 'matchLabel', key: 'group' });
    expect(selectionRule({ pools: ['a'] }, 'group').kind).toBe('pools');
    expect(refusal({}, 'bad/key/x').code).toBe('INVALID_LABEL');
  });

  it('no rule and no default selects all pools', () => {
    expect(selectionRule({}, null)).toEqual({ kind: 'all' });
  });
});
