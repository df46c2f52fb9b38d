import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startTestApi, type TestApi } from '../support/test-api';

const MONITORING = join(__dirname, '../../deploy/monitoring');

/** deploy/monitoring: rules promtool accepts, over metrics the API really exports; optional, so never in the base. */
describe('deploy/monitoring', () => {
  let api: TestApi;
  let dir: string;
  beforeAll(async () => {
    api = await startTestApi('monitoring');
    dir = mkdtempSync(join(tmpdir(), 'monitoring-'));
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rule = parse(readFileSync(join(MONITORING, 'prometheusrule.yaml'), 'utf8'));
  const dashboard = readFileSync(join(MONITORING, 'ipledger-dashboard.json'), 'utf8');

  it("passes promtool check rules (the PrometheusRule's groups)", () => {
    const file = join(dir, 'rules.yaml');
    writeFileSync(file, stringify({ groups: rule.spec.groups }));
    const result = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect({ status: result.status, err: result.stderr }).toEqual({ status: 0, err: '' });
    expect(result.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('alerts on a pool over 90 % and over 98 %, exhaustion answers, waiting leak candidates, consumer lag and a broken audit chain', () => {
    const alerts = rule.spec.groups.flatMap((g: { rules: Array<{ alert?: string }> }) => g.rules.map((r) => r.alert)).filter(Boolean);
    expect(alerts).toEqual(
      expect.arrayContaining([
        'IpledgerPoolAbove90Percent',
        'IpledgerPoolAbove98Percent',
        'IpledgerExhaustionAnswersRising',
        'IpledgerLeakCandidatesWaiting',
        'IpledgerConsumerLagging',
        'IpledgerAuditChainBroken',
      ]),
    );
  });

  it('names only metrics the API exports, in the rules and the dashboard', async () => {
    const exposition = (await api.http().get('/metrics').expect(200)).text;
    const exported = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const named = new Set(
      [...`${stringify(rule)}\n${dashboard}`.matchAll(/\bipledger_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')),
    );
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
    expect(JSON.parse(dashboard).panels.length).toBeGreaterThan(0);
  });

  it('reads the held-address gauges per cluster: every API replica reports the same rows, so max by cluster, never max over the fleet', () => {
    const expressions = [
      ...rule.spec.groups.flatMap((g: { rules: Array<{ expr: string }> }) => g.rules.map((r) => r.expr)),
      ...[...dashboard.matchAll(/"expr": "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]),
    ].filter((expr: string) => /ipledger_(held_for_node|leak_candidates)\b/.test(expr));
    expect(expressions.length).toBeGreaterThanOrEqual(4);
    expect(expressions.filter((expr: string) => !/^max by \(cluster\) \(ipledger_(held_for_node|leak_candidates)\)/.test(expr))).toEqual(
      [],
    );
  });

  it('is a kustomize component the base does not include', () => {
    expect(parse(readFileSync(join(MONITORING, 'kustomization.yaml'), 'utf8')).kind).toBe('Component');
    const base = parse(readFileSync(join(MONITORING, '../kustomization.yaml'), 'utf8'));
    expect([...(base.resources ?? []), ...(base.components ?? [])].filter((r: string) => r.includes('monitoring'))).toEqual([]);
  });
});
