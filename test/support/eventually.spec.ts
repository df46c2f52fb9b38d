import { eventually } from './eventually';

describe('eventually', () => {
  it('returns the first value that is done', async () => {
    let n = 0;
    expect(
      await eventually(
        () => ++n,
        (value) => value === 3,
      ),
    ).toBe(3);
  });

  it('throws at the timeout, naming what it waited for and the last value seen', async () => {
    await expect(
      eventually(
        () => Promise.resolve({ count: 1 }),
        (v) => v.count === 2,
        100,
        'two events',
      ),
    ).rejects.toThrow('timed out after 100 ms waiting for two events; last seen: {"count":1}');
  });
});
