import { userInfo } from 'node:os';
import { loadConfig, parseTokens } from './config';

describe('configuration from the environment', () => {
  it('has defaults that work on a developer machine, binding loopback while access checks are off', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', natsUrl: 'nats://127.0.0.1:4222', defaultMatchLabel: null });
    expect(config.databaseUrl).toBe(`postgres://${userInfo().username}@127.0.0.1:5432/ipledger`);
    expect(config.tokens.size).toBe(0);
  });

  it('connects as PGUSER when the URL names no user, and keeps a user the URL names', () => {
    expect(loadConfig({ PGUSER: 'ipam' }).databaseUrl).toBe('postgres://ipam@127.0.0.1:5432/ipledger');
    expect(loadConfig({ DATABASE_URL: 'postgres://app:secret@db:5432/x', PGUSER: 'ipam' }).databaseUrl).toBe(
      'postgres://app:secret@db:5432/x',
    );
  });

  it('binds every interface once tokens are configured, and reads token roles and names', () => {
    const config = loadConfig({ IPAM_TOKENS: 'abc:admin:ops, def:reader', PORT: '9000', IPAM_DEFAULT_MATCH_LABEL: 'pool-group' });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 9000, defaultMatchLabel: 'pool-group' });
    expect(config.tokens.get('abc')).toEqual({ role: 'admin', name: 'ops' });
    expect(config.tokens.get('def')).toEqual({ role: 'reader', name: expect.stringMatching(/^reader-[0-9a-f]{8}$/) });
  });

  it('refuses a malformed token list or port without echoing the token', () => {
    expect(() => parseTokens('s3cret:superuser')).toThrow(/must be token:role/);
    expect(() => parseTokens('s3cret:superuser')).not.toThrow(/s3cret/);
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT "http"/);
  });

  it('consumes the watcher stream by default, with names, concurrency and leak grace from the environment', () => {
    expect(loadConfig({}).kubernetes).toEqual({
      names: { stream: 'IPLEDGER_KUBERNETES', subjectPrefix: 'ipledger.kubernetes' },
      durable: 'ipledger-api',
      concurrency: 16,
      leakGraceSeconds: 300,
      maxAttempts: 10,
      streamReplicas: 1,
    });
    expect(
      loadConfig({ IPAM_NATS_STREAM: 'K', IPAM_NATS_SUBJECT_PREFIX: 'k8s', IPAM_NATS_DURABLE: 'd', IPAM_LEAK_GRACE_SECONDS: '0' })
        .kubernetes,
    ).toMatchObject({ names: { stream: 'K', subjectPrefix: 'k8s' }, durable: 'd', leakGraceSeconds: 0 });
    expect(loadConfig({ IPAM_KUBERNETES_CONSUMER: 'off' }).kubernetes).toBeNull();
    expect(() => loadConfig({ IPAM_KUBERNETES_CONSUMER: 'yes' })).toThrow(/must be on or off/);
    expect(() => loadConfig({ IPAM_LEAK_GRACE_SECONDS: '-1' })).toThrow(/IPAM_LEAK_GRACE_SECONDS "-1"/);
    expect(loadConfig({ IPAM_KUBERNETES_MAX_ATTEMPTS: '3', IPAM_NATS_REPLICAS: '3' }).kubernetes).toMatchObject({
      maxAttempts: 3,
      streamReplicas: 3,
    });
    expect(() => loadConfig({ IPAM_NATS_REPLICAS: '0' })).toThrow(/IPAM_NATS_REPLICAS "0" must be a whole number from 1 to 5/);
  });
});
