import { createLog, formatTextLine, logFormat, type LogLevel } from './log';

describe('log lines', () => {
  const time = new Date('2026-12-01T07:00:00.000Z');

  it('writes JSON with level, time, message and the fields, leaving out undefined ones', () => {
    const written: string[] = [];
    jest.useFakeTimers({ now: time });
    try {
      createLog({ format: 'json', write: (line) => written.push(line) }).warn('pool "a" is 90% full %s', {
        requestId: 'r1',
        actor: undefined,
      });
    } finally {
      jest.useRealTimers();
    }
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0])).toEqual({
      level: 'warn',
      time: '2026-12-01T07:00:00.000Z',
      message: 'pool "a" is 90% full %s',
      requestId: 'r1',
    });
    expect(written[0]).not.toContain('\n');
  });

  it('writes text for a terminal', () => {
    expect(formatTextLine('info', 'listening', { context: 'ipledger', port: 8080 }, time)).toBe(
      '2026-12-01T07:00:00.000Z INFO  [ipledger] listening port=8080',
    );
  });

  it('reads IPAM_LOG_FORMAT, json by default, and refuses anything else', () => {
    expect(logFormat({})).toBe('json');
    expect(logFormat({ IPAM_LOG_FORMAT: 'text' })).toBe('text');
    expect(() => logFormat({ IPAM_LOG_FORMAT: 'xml' })).toThrow('IPAM_LOG_FORMAT "xml" must be json or text');
  });

  it('adds the ambient fields of the moment to each line', () => {
    const written: Array<[string, LogLevel]> = [];
    let ambient: { requestId: string } | undefined = { requestId: 'r1' };
    const log = createLog(
      { format: 'json', ambient: () => ambient, write: (line, level) => written.push([line, level]) },
      { context: 'api' },
    );
    log.error('boom');
    ambient = undefined;
    log.info('calm', { n: 1 });
    expect(written.map(([line, level]) => [JSON.parse(line), level])).toEqual([
      [expect.objectContaining({ level: 'error', message: 'boom', context: 'api', requestId: 'r1' }), 'error'],
      [expect.objectContaining({ level: 'info', message: 'calm', context: 'api', n: 1 }), 'info'],
    ]);
  });
});
