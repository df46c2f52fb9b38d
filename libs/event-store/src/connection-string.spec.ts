import { formatConnectionString, MAX_HOSTS, parseConnectionString, withDatabase } from './connection-string';

const env = { PGUSER: 'envuser' };
const parse = (url: string) => parseConnectionString(url, env);

describe('parseConnectionString (libpq connection URIs)', () => {
  it('reads a host list in order, with default ports, IPv6 in brackets and percent-encoded parts', () => {
    const settings = parse('postgresql://app%40x:p%3Ass@h1:5433,h2,[::1]:6000,%2Ftmp/my%20db?target_session_attrs=read-write');
    expect(settings.hosts).toEqual([
      { host: 'h1', port: 5433 },
      { host: 'h2', port: 5432 },
      { host: '::1', port: 6000 },
      { host: '/tmp', port: 5432 },
    ]);
    expect(settings).toMatchObject({ user: 'app@x', password: 'p:ss', database: 'my db', targetSessionAttrs: 'read-write' });
  });

  it('defaults as libpq: localhost, port 5432, PGUSER, the user as database, any session, sslmode prefer', () => {
    expect(parse('postgres://')).toEqual({
      hosts: [{ host: 'localhost', port: 5432 }],
      user: 'envuser',
      password: undefined,
      database: 'envuser',
      targetSessionAttrs: 'any',
      connectTimeoutMs: 0,
      ssl: { mode: 'prefer' },
    });
  });

  it('takes hosts and ports from parameters: one port for all, or one a host', () => {
    expect(parse('postgres:///db?host=a,b&port=7000').hosts).toEqual([
      { host: 'a', port: 7000 },
      { host: 'b', port: 7000 },
    ]);
    expect(parse('postgres:///db?host=a,b&port=7000,7001').hosts).toEqual([
      { host: 'a', port: 7000 },
      { host: 'b', port: 7001 },
    ]);
    expect(() => parse('postgres:///db?host=a,b,c&port=1,2')).toThrow('names 3 hosts and 2 ports');
  });

  it.each(['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'])('accepts target_session_attrs=%s', (value) => {
    expect(parse(`postgres://h/db?target_session_attrs=${value}`).targetSessionAttrs).toBe(value);
  });

  it('reads connect_timeout in seconds, at least 2 as libpq has it, 0 for none', () => {
    expect(parse('postgres://h/db?connect_timeout=10').connectTimeoutMs).toBe(10_000);
    expect(parse('postgres://h/db?connect_timeout=1').connectTimeoutMs).toBe(2_000);
    expect(parse('postgres://h/db?connect_timeout=0').connectTimeoutMs).toBe(0);
    expect(() => parse('postgres://h/db?connect_timeout=-1')).toThrow('connect_timeout "-1" must be a whole number of seconds');
  });

  it('reads the ssl parameters; sslrootcert=system means verify-full', () => {
    expect(parse('postgres://h/db?sslmode=verify-full&sslrootcert=/ca.pem&sslcert=/c.pem&sslkey=/k.pem').ssl).toEqual({
      mode: 'verify-full',
      rootCert: '/ca.pem',
      cert: '/c.pem',
      key: '/k.pem',
    });
    expect(parse('postgres://h/db?sslrootcert=system').ssl).toEqual({ mode: 'verify-full', rootCert: 'system' });
    expect(() => parse('postgres://h/db?sslrootcert=system&sslmode=require')).toThrow('sslrootcert=system needs sslmode=verify-full');
    for (const mode of ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']) {
      expect(parse(`postgres://h/db?sslmode=${mode}`).ssl.mode).toBe(mode);
    }
  });

  it('refuses what libpq refuses, naming the part and never echoing the URL (it may hold a password)', () => {
    const refusals: Array<[string, string]> = [
      ['mysql://u:secret@h/db', 'must look like postgres://'],
      ['postgres://u:secret@h:99999/db', 'port "99999" is not a port number'],
      [
        'postgres://u:secret@h/db?sslmode=always',
        'sslmode "always" must be one of disable, allow, prefer, require, verify-ca, verify-full',
      ],
      ['postgres://u:secret@h/db?target_session_attrs=master', 'target_session_attrs "master" must be one of'],
      ['postgres://u:secret@h/db?frobnicate=1', 'parameter "frobnicate" is not supported'],
      ['postgres://u:secret%zz@h/db', 'password is not valid percent-encoding'],
      [`postgres://u:secret@${Array.from({ length: MAX_HOSTS + 1 }, (_, i) => `h${i}`).join(',')}/db`, `more than ${MAX_HOSTS}`],
    ];
    for (const [url, message] of refusals) {
      let error: Error | undefined;
      try {
        parse(url);
      } catch (caught) {
        error = caught as Error;
      }
      expect(error?.message).toContain(message);
      expect(error?.message).not.toContain('secret');
    }
  });

  it('formats what it parsed back into an equivalent URL, and swaps the database of a host list', () => {
    const url =
      'postgres://u:p%2Fw@h1:5432,[::1]:5433/db?target_session_attrs=primary&connect_timeout=3&sslmode=verify-ca&sslrootcert=%2Fca&application_name=x';
    expect(parse(formatConnectionString(parse(url)))).toEqual(parse(url));
    expect(parseConnectionString(withDatabase(url, 'postgres'))).toEqual({ ...parse(url), database: 'postgres' });
  });
});
