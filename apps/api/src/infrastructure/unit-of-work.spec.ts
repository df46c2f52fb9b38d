import { ConcurrencyError } from '@ipledger/event-store';
import { attempts, DeferredWrites, FencedWrites, OwnTransaction } from './unit-of-work';

const conflict = () => new ConcurrencyError('pool-p', 1, 2);

describe('attempts: the unit of work says whether a command decides again after a conflict', () => {
  it('an OwnTransaction that retries runs the work again after each conflict until it commits', async () => {
    let tries = 0;
    const result = await attempts(new OwnTransaction({ retries: true }), () =>
      ++tries <= 3 ? Promise.reject(conflict()) : Promise.resolve('done'),
    );
    expect(result).toBe('done');
    expect(tries).toBe(4);
  });

  it.each([
    ['an OwnTransaction whose caller retries (the Kubernetes consumer: redelivery is its retry)', new OwnTransaction({ retries: false })],
    ['fenced writes', new FencedWrites(() => Promise.resolve())],
    ['deferred writes', new DeferredWrites()],
  ])('%s: tries once and lets the conflict go up', async (_, unit) => {
    let tries = 0;
    const running = attempts(unit, () => {
      tries++;
      return Promise.reject(conflict());
    });
    await expect(running).rejects.toBeInstanceOf(ConcurrencyError);
    expect(tries).toBe(1);
  });

  it('gives up with CONCURRENCY_CONFLICT after a bounded number of tries when no request deadline bounds it', async () => {
    let tries = 0;
    const running = attempts(new OwnTransaction({ retries: true }), () => {
      tries++;
      return Promise.reject(conflict());
    });
    await expect(running).rejects.toMatchObject({ code: 'CONCURRENCY_CONFLICT', message: /gave up after 20 attempts/ });
    expect(tries).toBe(20);
  });

  it('lets any other error through at once', async () => {
    let tries = 0;
    await expect(
      attempts(new OwnTransaction({ retries: true }), () => {
        tries++;
        return Promise.reject(new Error('bug'));
      }),
    ).rejects.toThrow('bug');
    expect(tries).toBe(1);
  });
});
