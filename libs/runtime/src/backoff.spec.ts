import { Backoff, backoffDelayMs } from './backoff';

describe('backoffDelayMs', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };

  it('doubles the ceiling with each attempt up to the maximum', () => {
    const ceilings = [1, 2, 3, 4, 5, 60].map((attempt) => backoffDelayMs(attempt, policy, () => 1));
    expect(ceilings).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('draws the delay from the upper half of the ceiling', () => {
    expect(backoffDelayMs(3, policy, () => 0)).toBe(200);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(300);
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelayMs(4, policy);
      expect(delay).toBeGreaterThanOrEqual(400);
      expect(delay).toBeLessThanOrEqual(800);
    }
  });
});

describe('Backoff', () => {
  it('grows while failures follow each other and starts over after a quiet period', () => {
    const backoff = new Backoff({ baseMs: 100, maxMs: 1_000 }, 60_000);
    const first = backoff.next();
    expect(first).toBeLessThanOrEqual(100);
    expect(backoff.next()).toBeGreaterThanOrEqual(100);
    expect(backoff.next()).toBeGreaterThanOrEqual(200);

    const quiet = new Backoff({ baseMs: 100, maxMs: 1_000 }, -1);
    quiet.next();
    quiet.next();
    expect(quiet.next()).toBeLessThanOrEqual(100);
  });
});
