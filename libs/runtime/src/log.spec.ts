import { createLog, formatTextLine, logFormat, logLevel, type LogLevel } from './log';

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

  it('reads IPAM_LOG_FORMAT: unset, text for a terminal and json otherwise; set, it wins; anything else is refused', () => {
    expect(logFormat({}, false)).toBe('json');
    expect(logFormat({}, true)).toBe('text');
    expect(logFormat({ IPAM_LOG_FORMAT: 'text' }, false)).toBe('text');
    expect(logFormat({ IPAM_LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(() => logFormat({ IPAM_LOG_FORMAT: 'xml' })).toThrow('IPAM_LOG_FORMAT "xml" must be json or text');
  });

  it.each(['json', 'text'] as const)('writes no line below IPAM_LOG_LEVEL (info by default), in %s', (format) => {
    const written: LogLevel[] = [];
    const write = (_: string, level: LogLevel) => written.push(level);
    const all = (log: ReturnType<typeof createLog>) => (['debug', 'info', 'warn', 'error'] as const).forEach((level) => log[level]('x'));
    all(createLog({ format, write }));
    expect(written.splice(0)).toEqual(['info', 'warn', 'error']);
    all(createLog({ format, write, level: logLevel({ IPAM_LOG_LEVEL: 'debug' }) }));
    expect(written.splice(0)).toEqual(['debug', 'info', 'warn', 'error']);
    all(createLog({ format, write, level: logLevel({ IPAM_LOG_LEVEL: 'warn' }) }));
    expect(written).toEqual(['warn', 'error']);
    expect(logLevel({})).toBe('info');
    expect(() => logLevel({ IPAM_LOG_LEVEL: 'trace' })).toThrow('IPAM_LOG_LEVEL "trace" must be one of debug, info, warn, error');
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
