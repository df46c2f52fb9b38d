import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { embeddedDatabaseConfig, loadConfig, parseTokens } from './config';

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
    expect(config.tokens.get('abc')).toEqual({ role: 'admin', name: 'ops', cluster: null, node: null });
    expect(config.tokens.get('def')).toEqual({
      role: 'reader',
      name: expect.stringMatching(/^reader-[0-9a-f]{8}$/),
      cluster: null,
      node: null,
    });
  });

  it('names a token without a name by its role and an id drawn at load time, nothing of its digest', () => {
    const token = 'def';
    const digest = createHash('sha256').update(token).digest('hex');
    const names = Array.from({ length: 20 }, () => parseTokens(`${token}:reader`).get(token)!.name);
    // the old name was the role and the digest's first 8 hex digits; a name drawn anew at each load derives from nothing of the token
    for (const name of names) expect(name).not.toContain(digest.slice(0, 8));
    expect(new Set(names).size).toBe(names.length);
  });

  it('fails closed: without tokens it listens on loopback only, unless IPAM_AUTH=off says to serve openly', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost'])
      expect(loadConfig({ HOST: host })).toMatchObject({ host, auth: 'on' });
    for (const host of ['0.0.0.0', '::', '', '10.0.0.5', 'ipledger.example'])
      expect(() => loadConfig({ HOST: host })).toThrow(
        /refusing to listen on .* with no tokens.*set IPAM_TOKENS or IPAM_TOKENS_FILE, or IPAM_AUTH=off/,
      );
    expect(loadConfig({ HOST: '0.0.0.0', IPAM_AUTH: 'off' })).toMatchObject({ host: '0.0.0.0', auth: 'off' });
    expect(loadConfig({ HOST: '0.0.0.0', IPAM_TOKENS: 'abc:admin' })).toMatchObject({ host: '0.0.0.0', auth: 'on' });
    expect(() => loadConfig({ IPAM_AUTH: 'off', IPAM_TOKENS: 'abc:admin' })).toThrow(/IPAM_AUTH=off/);
    expect(() => loadConfig({ IPAM_AUTH: 'no' })).toThrow(/IPAM_AUTH "no" must be on or off/);
  });

  it('reads a token file (one entry a line, # comments), binds every interface for it, and refuses both sources at once', () => {
    expect(parseTokens('# ops\nabc:admin:ops\n\ndef:reader\n', 'file').get('abc')).toEqual({
      role: 'admin',
      name: 'ops',
      cluster: null,
      node: null,
    });
    expect(loadConfig({ IPAM_TOKENS_FILE: '/etc/ipledger/tokens' })).toMatchObject({ host: '0.0.0.0', tokensFile: '/etc/ipledger/tokens' });
    expect(() => loadConfig({ IPAM_TOKENS: 'abc:admin', IPAM_TOKENS_FILE: '/etc/ipledger/tokens' })).toThrow(/not both/);
  });

  it('migrates as the owner named by IPAM_MIGRATIONS_DATABASE_URL, else as DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://api@db/x' }).migrationsDatabaseUrl).toBe('postgres://api@db:5432/x');
    expect(
      loadConfig({ DATABASE_URL: 'postgres://api@db/x', IPAM_MIGRATIONS_DATABASE_URL: 'postgres://db/x', PGUSER: 'owner' }),
    ).toMatchObject({ databaseUrl: 'postgres://api@db:5432/x', migrationsDatabaseUrl: 'postgres://owner@db:5432/x' });
  });

  it('reads a libpq host list in DATABASE_URL, and refuses a malformed one at start without echoing it', () => {
    const url = 'postgres://api:pw@h1:5432,h2:5433/x?target_session_attrs=read-write&sslmode=verify-full&sslrootcert=/ca.crt';
    expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(
      'postgres://api:pw@h1:5432,h2:5433/x?target_session_attrs=read-write&sslmode=verify-full&sslrootcert=%2Fca.crt',
    );
    expect(() => loadConfig({ DATABASE_URL: 'postgres://api:pw@h1,h2/x?sslmode=sometimes' })).toThrow(
      /^sslmode "sometimes" must be one of/,
    );
  });

  it('migrates at start unless IPAM_MIGRATE=off, and refuses any other value', () => {
    expect(loadConfig({}).migrate).toBe(true);
    expect(loadConfig({ IPAM_MIGRATE: 'on' }).migrate).toBe(true);
    expect(loadConfig({ IPAM_MIGRATE: 'off' }).migrate).toBe(false);
    expect(() => loadConfig({ IPAM_MIGRATE: 'no' })).toThrow('IPAM_MIGRATE "no" must be on or off');
  });

  it('embeds no PostgreSQL for a migrations-only run (IPAM_MIGRATIONS_DATABASE_URL alone)', () => {
    expect(embeddedDatabaseConfig({ IPAM_MIGRATIONS_DATABASE_URL: 'postgres://owner@db/x' })).toBeNull();
    expect(embeddedDatabaseConfig({})).not.toBeNull();
  });

  it('bounds statements and requests by default', () => {
    expect(loadConfig({})).toMatchObject({ statementTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    expect(loadConfig({ IPAM_STATEMENT_TIMEOUT_MS: '0', IPAM_REQUEST_TIMEOUT_MS: '500' })).toMatchObject({
      statementTimeoutMs: 0,
      requestTimeoutMs: 500,
    });
  });

  it('refuses a malformed token list or port without echoing the token', () => {
    expect(() => parseTokens('s3cret:superuser')).toThrow(/IPAM_TOKENS entry 1 has no role \(field 2\) of reader, allocator, admin/);
    expect(() => parseTokens('s3cret:superuser')).not.toThrow(/s3cret/);
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT "http"/);
  });

  /** The message of what `parse` throws. */
  const refusal = (parse: () => unknown) => {
    try {
      parse();
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('not refused');
  };

  it('names a malformed entry by its position (and line) and what is wrong, never any part of any entry', () => {
    const secrets = ['ADMINSECRET111', 'READERSECRET222', 'TOKSECRET444', 'NODESECRET555', 'worker-9'];
    const cases: Array<[string, RegExp]> = [
      // the finding: a token in the role's place, another in the name's
      [`${secrets[0]}:admin:ops,${secrets[1]}:reader,${secrets[3]}:${secrets[2]}`, /^IPAM_TOKENS entry 3 has no role \(field 2\)/],
      [`${secrets[0]}:admin,${secrets[2]}`, /^IPAM_TOKENS entry 2 has no role/],
      [`${secrets[0]}:admin:${secrets[2]}:${secrets[3]}`, /^IPAM_TOKENS entry 1 has a cluster \(field 4\) that is not a cluster name/],
      [`${secrets[0]}:admin::default:${secrets[4]}`, /^IPAM_TOKENS entry 1 binds a admin to a node \(field 5\)/],
      [`${secrets[0]}:allocator:n::${secrets[2]}_X`, /^IPAM_TOKENS entry 1 has a node \(field 5\) that is not a Kubernetes node name/],
      [`${secrets[0]}:allocator:n::w:${secrets[2]}`, /^IPAM_TOKENS entry 1 has 6 fields, more than 5/],
      [`${secrets[0]} ${secrets[2]}:allocator`, /^IPAM_TOKENS entry 1 has a token \(field 1\) that is empty or holds a character/],
      [`${secrets[0]}:admin\n# a comment\n\n${secrets[0]}:reader`, /^IPAM_TOKENS entry 2 \(line 4\) repeats the token of an earlier entry/],
    ];
    for (const [text, expected] of cases) {
      const message = refusal(() => parseTokens(text));
      expect({ text, message }).toEqual({ text, message: expect.stringMatching(expected) });
      // no part of any entry: neither a token nor a field beside it
      for (const secret of secrets) expect({ text, message, leaks: message.includes(secret) }).toMatchObject({ leaks: false });
      expect(message).not.toMatch(/\*\*\*/);
    }
    expect(refusal(() => parseTokens('a:admin\nb:bogus', 'IPAM_TOKENS_FILE /etc/t'))).toMatch(
      /^IPAM_TOKENS_FILE \/etc\/t entry 2 \(line 2\)/,
    );
  });

  it('binds an allocator to a node (and its cluster, default when empty), and keeps the cluster of any token', () => {
    const tokens = parseTokens(
      'n1tok:allocator:cni-1:default:worker-1,n2tok:allocator::default:worker-2,n3tok:allocator:n3::worker-3,r:reader:r:default',
    );
    expect(tokens.get('n1tok')).toEqual({ role: 'allocator', name: 'cni-1', cluster: 'default', node: 'worker-1' });
    expect(tokens.get('n2tok')).toMatchObject({
      name: expect.stringMatching(/^allocator-[0-9a-f]{8}$/),
      cluster: 'default',
      node: 'worker-2',
    });
    expect(tokens.get('n3tok')).toEqual({ role: 'allocator', name: 'n3', cluster: 'default', node: 'worker-3' });
    expect(tokens.get('r')).toEqual({ role: 'reader', name: 'r', cluster: 'default', node: null });
    expect(parseTokens('t:allocator:n:east:worker-1').get('t')).toEqual({
      role: 'allocator',
      name: 'n',
      cluster: 'east',
      node: 'worker-1',
    });
    expect(() => parseTokens('t:reader:n::worker-1')).toThrow(/binds a reader to a node/);
  });

  it('turns on TokenReview with its defaults, counts it as access checks, and refuses it with IPAM_AUTH=off', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipledger-config-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, cluster: {server: "https://10.0.0.1:6443"}}]\n' +
        'users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n',
    );
    try {
      const on = { IPAM_TOKEN_REVIEW: 'on', KUBECONFIG: kubeconfig };
      expect(loadConfig(on)).toMatchObject({
        host: '0.0.0.0',
        tokenReview: {
          connections: new Map([['default', expect.objectContaining({ server: 'https://10.0.0.1:6443' })]]),
          audience: 'ipledger',
          serviceAccounts: ['system:serviceaccount:ipledger:ipledger-cni'],
          cacheMs: 10_000,
        },
      });
      expect(
        loadConfig({ ...on, IPAM_TOKEN_REVIEW_SERVICE_ACCOUNTS: 'system:serviceaccount:kube-system:cni, system:serviceaccount:a:b' })
          .tokenReview!.serviceAccounts,
      ).toEqual(['system:serviceaccount:kube-system:cni', 'system:serviceaccount:a:b']);
      expect(() => loadConfig({ ...on, IPAM_TOKEN_REVIEW_SERVICE_ACCOUNTS: 'ipledger-cni' })).toThrow(
        /must be system:serviceaccount:<namespace>:<name>/,
      );
      expect(() => loadConfig({ ...on, IPAM_TOKEN_REVIEW_CACHE_MS: '900000' })).toThrow(/IPAM_TOKEN_REVIEW_CACHE_MS "900000"/);
      expect(() => loadConfig({ ...on, IPAM_AUTH: 'off' })).toThrow(/IPAM_AUTH=off/);
      expect(() => loadConfig({ ...on, KUBECONFIG: join(dir, 'none') })).toThrow(/cannot read kubeconfig/);
      expect(() => loadConfig({ IPAM_TOKEN_REVIEW: 'yes' })).toThrow(/IPAM_TOKEN_REVIEW "yes" must be on or off/);
      expect(loadConfig({}).tokenReview).toBeNull();

      // each member cluster's API server from its own kubeconfig; the default cluster's stays KUBECONFIG's
      const east = join(dir, 'east');
      writeFileSync(east, readFileSync(kubeconfig, 'utf8').replace('10.0.0.1', '10.1.0.1'));
      const clusters = loadConfig({ ...on, IPAM_TOKEN_REVIEW_CLUSTERS: ` east=${east} ` }).tokenReview!.connections;
      expect([...clusters].map(([cluster, c]) => [cluster, c.server])).toEqual([
        ['default', 'https://10.0.0.1:6443'],
        ['east', 'https://10.1.0.1:6443'],
      ]);
      const refused = {
        [`east:${east}`]: /must be <cluster>=<kubeconfig file>/,
        'east=': /must be <cluster>=<kubeconfig file>/,
        [`East=${east}`]: /"East=.*": .*cluster/,
        [`default=${east}`]: /names the default cluster/,
        [`east=${east},east=${kubeconfig}`]: /names cluster "east" twice/,
        [`east=${join(dir, 'none')}`]: /cluster "east": cannot read kubeconfig/,
      };
      for (const [value, error] of Object.entries(refused))
        expect(() => loadConfig({ ...on, IPAM_TOKEN_REVIEW_CLUSTERS: value })).toThrow(error);
      expect(() => loadConfig({ IPAM_TOKEN_REVIEW_CLUSTERS: `east=${east}` })).toThrow(/needs IPAM_TOKEN_REVIEW=on/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an empty or blank PORT rather than listen on a random port, and keeps an explicit 0', () => {
    expect(() => loadConfig({ PORT: '' })).toThrow(/PORT "" is not a port number/);
    expect(() => loadConfig({ PORT: ' ' })).toThrow(/PORT " " is not a port number/);
    expect(() => loadConfig({ PORT: '65536' })).toThrow(/PORT "65536"/);
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({}).port).toBe(8080);
  });

  it('consumes the watcher stream when NATS_URL is set, with names, concurrency and leak grace from the environment', () => {
    expect(loadConfig({}).kubernetes).toBeNull();
    expect(loadConfig({ IPAM_KUBERNETES_CONSUMER: 'on' }).kubernetes).not.toBeNull();
    expect(loadConfig({ NATS_URL: 'nats://127.0.0.1:4222' }).kubernetes).toEqual({
      names: { stream: 'IPLEDGER_KUBERNETES', subjectPrefix: 'ipledger.kubernetes' },
      durable: 'ipledger-api',
      concurrency: 16,
      leakGraceSeconds: 300,
      unreachableNodeGraceSeconds: 600,
      maxAttempts: 10,
      streamReplicas: 1,
      streamMaxAgeSeconds: 604_800,
      ipPoolStatusIntervalMs: 2000,
      podWaitMs: 3000,
    });
    expect(
      loadConfig({
        IPAM_KUBERNETES_CONSUMER: 'on',
        IPAM_NATS_STREAM: 'K',
        IPAM_NATS_SUBJECT_PREFIX: 'k8s',
        IPAM_NATS_DURABLE: 'd',
        IPAM_LEAK_GRACE_SECONDS: '0',
      }).kubernetes,
    ).toMatchObject({ names: { stream: 'K', subjectPrefix: 'k8s' }, durable: 'd', leakGraceSeconds: 0 });
    expect(loadConfig({ NATS_URL: 'nats://127.0.0.1:4222', IPAM_KUBERNETES_CONSUMER: 'off' }).kubernetes).toBeNull();
    expect(() => loadConfig({ IPAM_KUBERNETES_CONSUMER: 'yes' })).toThrow(/must be on or off/);
    expect(() => loadConfig({ IPAM_KUBERNETES_CONSUMER: 'on', IPAM_LEAK_GRACE_SECONDS: '-1' })).toThrow(/IPAM_LEAK_GRACE_SECONDS "-1"/);
    expect(
      loadConfig({
        IPAM_KUBERNETES_CONSUMER: 'on',
        IPAM_KUBERNETES_MAX_ATTEMPTS: '3',
        IPAM_NATS_REPLICAS: '3',
        IPAM_NATS_MAX_AGE_SECONDS: '3600',
      }).kubernetes,
    ).toMatchObject({
      maxAttempts: 3,
      streamReplicas: 3,
      streamMaxAgeSeconds: 3600,
    });
    expect(() => loadConfig({ IPAM_KUBERNETES_CONSUMER: 'on', IPAM_NATS_MAX_AGE_SECONDS: '10' })).toThrow(
      /IPAM_NATS_MAX_AGE_SECONDS "10" must be a whole number of 60 or more/,
    );
    expect(() => loadConfig({ IPAM_KUBERNETES_CONSUMER: 'on', IPAM_NATS_REPLICAS: '0' })).toThrow(
      /IPAM_NATS_REPLICAS "0" must be a whole number from 1 to 5/,
    );
  });

  it('runs a PostgreSQL of its own without DATABASE_URL, in IPAM_DATA_DIR on IPAM_EMBEDDED_POSTGRES_PORT', () => {
    expect(embeddedDatabaseConfig({})).toEqual({ dataDir: '.ipledger', port: 54329 });
    expect(embeddedDatabaseConfig({ IPAM_DATA_DIR: '/var/lib/ipam', IPAM_EMBEDDED_POSTGRES_PORT: '6543' })).toEqual({
      dataDir: '/var/lib/ipam',
      port: 6543,
    });
    expect(embeddedDatabaseConfig({ DATABASE_URL: 'postgres://db/ipam' })).toBeNull();
    expect(() => embeddedDatabaseConfig({ IPAM_EMBEDDED_POSTGRES_PORT: 'x' })).toThrow(/IPAM_EMBEDDED_POSTGRES_PORT "x"/);
  });
});
