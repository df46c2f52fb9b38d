import { LabelSelector } from '../labels';
import { explainPool, ruleExclusion, type ExplainedPool } from './pool-explanation';
import type { SelectionRule } from './selection-rule';

const pool = (extra: Partial<ExplainedPool> = {}): ExplainedPool => ({
  name: 'g2',
  family: 4,
  disabled: false,
  nodeSelector: null,
  labels: { 'pool-group': 'g2' },
  free: '254',
  ...extra,
});
const node = { name: 'worker-1', labels: { 'pool-group': 'g1', zone: 'a' }, cluster: { name: 'west', labels: { region: 'west' } } };
const matchLabel: SelectionRule = { kind: 'matchLabel', key: 'pool-group' };

describe('ruleExclusion', () => {
  it.each<[string, SelectionRule, ExplainedPool, string | null]>([
    ['every pool chooses any', { kind: 'all' }, pool(), null],
    ['a named pool', { kind: 'pools', names: ['a', 'g2'] }, pool(), null],
    ['a pool not named', { kind: 'pools', names: ['a', 'b'] }, pool(), 'not among the pools the rule names: pools [a, b]'],
    ['a selector that matches', { kind: 'poolSelector', selector: LabelSelector.parse('pool-group in (g2)') }, pool(), null],
    [
      'a selector that does not',
      { kind: 'poolSelector', selector: LabelSelector.parse('pool-group=g1') },
      pool(),
      'poolSelector "pool-group=g1" does not match the pool\'s labels',
    ],
    ['the same value', matchLabel, pool({ labels: { 'pool-group': 'g1' } }), null],
    ['another value', matchLabel, pool(), 'matchLabel=pool-group: the pool\'s pool-group is "g2", the node\'s is "g1"'],
    ['no such label', matchLabel, pool({ labels: {} }), 'matchLabel=pool-group: the pool has no label pool-group (the node\'s is "g1")'],
  ])('%s', (_, rule, candidate, reason) => {
    expect(ruleExclusion(rule, candidate, node)).toBe(reason);
  });

  it('says so when the node has no value for matchLabel, and reads own labels only (a prototype key is a label key)', () => {
    expect(ruleExclusion(matchLabel, pool(), { name: 'bare', labels: {} })).toBe(
      'matchLabel=pool-group: node "bare" has no label pool-group, so the rule chooses no pool',
    );
    expect(ruleExclusion({ kind: 'matchLabel', key: 'constructor' }, pool(), node)).toMatch(/node "worker-1" has no label constructor/);
  });
});

describe('explainPool', () => {
  it('is null for a pool allocation would take an address of', () => {
    expect(explainPool(matchLabel, pool({ labels: { 'pool-group': 'g1' } }), node, [4, 6])).toBeNull();
  });

  it('gives every reason in the order they are decided: rule, family, disabled, nodeSelector, clusterSelector, room', () => {
    const hopeless = pool({ family: 6, disabled: true, nodeSelector: 'zone=b', clusterSelector: 'region=east', free: '0' });
    expect(explainPool(matchLabel, hopeless, node, [4])).toEqual({
      pool: 'g2',
      reason: [
        'matchLabel=pool-group: the pool\'s pool-group is "g2", the node\'s is "g1"',
        'family: pool is IPv6, request wants IPv4',
        'disabled',
        'nodeSelector "zone=b" does not match the node\'s labels',
        'clusterSelector "region=east" does not match the labels of cluster "west"',
        'exhausted: no free address (every address is allocated or reserved)',
      ].join('; '),
    });
  });

  it('counts room in addresses beyond a number (an IPv6 pool)', () => {
    expect(explainPool({ kind: 'all' }, pool({ family: 6, free: '18446744073709551616' }), node, [6])).toBeNull();
  });
});
