import { createLog, formatTextLine } from './log';
import { redactSecrets, redactUrl } from './redact';

describe('redacting credentials', () => {
  it.each([
    ['nats://u:secret@127.0.0.1:4222', 'nats://u:***@127.0.0.1:4222'],
    ['nats://s3cr3t-token@nats:4222', 'nats://***@nats:4222'],
    ['nats://u:secret@h1:4222, nats://u:secret@h2:4222', 'nats://u:***@h1:4222, nats://u:***@h2:4222'],
    ['tls://u:secret@h1:4222,tls://v:secret2@h2:4222', 'tls://u:***@h1:4222,tls://v:***@h2:4222'],
    [
      'postgres://u:secret@h1:5432,h2:5433/ipledger?target_session_attrs=read-write',
      'postgres://u:***@h1:5432,h2:5433/ipledger?target_session_attrs=read-write',
    ],
    ['postgres://u:p%40ss@secret@db/ipledger', 'postgres://u:***@db/ipledger'],
    ['postgres://u@db/ipledger?password=secret&sslpassword=secret', 'postgres://***@db/ipledger?password=***&sslpassword=***'],
    ["host=db user=u password='se cret' dbname=ipledger", 'host=db user=u password=*** dbname=ipledger'],
    ['http://proxy-user:secret@proxy:3128', 'http://proxy-user:***@proxy:3128'],
    ['socks5h://u:secret@proxy:1080', 'socks5h://u:***@proxy:1080'],
  ])('%s', (given, redacted) => {
    expect(redactUrl(given)).toBe(redacted);
    expect(redactUrl(given)).not.toContain('secret');
  });

  it('leaves URLs without credentials and ordinary text alone', () => {
    for (const text of ['nats://127.0.0.1:4222', 'postgres://db:5432/ipledger', 'mail ops@example.com', 'pool "a" is 90% full'])
      expect(redactSecrets(text)).toBe(text);
  });

  it('redacts a URL inside an error message, and every text field of a log line', () => {
    const error = new Error('connect ECONNREFUSED for nats://u:secret@127.0.0.1:4222 (postgres://u:secret@db/x)');
    let line = '';
    createLog({ format: 'json', write: (written) => (line = written) }).error(error.message, {
      stack: error.stack,
      url: 'nats://u:secret@h:1',
    });
    expect(line).not.toContain('secret');
    expect(JSON.parse(line)).toMatchObject({ message: expect.stringContaining('nats://u:***@127.0.0.1:4222') });
    expect(formatTextLine('info', 'via http://u:secret@proxy:3128', { context: 'watcher' })).not.toContain('secret');
  });
});
