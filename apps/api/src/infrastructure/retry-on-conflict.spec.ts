import { ConcurrencyError } from '@ipledger/event-store';
import { conflictsGoUp, retryOnConflict } from './retry-on-conflict';

const conflict = () => new ConcurrencyError('pool-p', 1, 2);

describe('retryOnConflict: one level retries, the outermost', () => {
  it('runs a nested call once per try of the call around it, so tries do not multiply', async () => {
    let outer = 0;
    let inner = 0;
    const result = await retryOnConflict(async () => {
      outer++;
      return retryOnConflict(() => (++inner <= 3 ? Promise.reject(conflict()) : Promise.resolve('done')));
    });
    expect(result).toBe('done');
    expect({ outer, inner }).toEqual({ outer: 4, inner: 4 });
  });

  it('inside conflictsGoUp (the Kubernetes consumer: redelivery is its retry) tries once and lets the conflict go up', async () => {
    let tries = 0;
    const running = conflictsGoUp(() =>
      retryOnConflict(() => {
        tries++;
        return Promise.reject(conflict());
      }),
    );
    await expect(running).rejects.toBeInstanceOf(ConcurrencyError);
    expect(tries).toBe(1);
  });

  it('gives up with CONCURRENCY_CONFLICT after a bounded number of tries when no request deadline bounds it', async () => {
    let tries = 0;
    const running = retryOnConflict(() => {
      tries++;
      return Promise.reject(conflict());
    });
    await expect(running).rejects.toMatchObject({ code: 'CONCURRENCY_CONFLICT', message: /gave up after 20 attempts/ });
    expect(tries).toBe(20);
  });

  it('lets any other error through at once', async () => {
    let tries = 0;
    await expect(
      retryOnConflict(() => {
        tries++;
        return Promise.reject(new Error('bug'));
      }),
    ).rejects.toThrow('bug');
    expect(tries).toBe(1);
  });
});
