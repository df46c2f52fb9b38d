import { Inject, Injectable, Logger } from '@nestjs/common';
import { chainBreaks, checkChainTail, sealChain, type ChainBreak, type StoredHead } from '@ipledger/event-store';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { BackgroundLoop } from '../infrastructure/background-loop';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';

/** Links sealed (or another replica's links checked) per transaction: a backlog is worked off in steps. */
const BATCH = 1000;
/** The newest links recomputed over their events at each check: the edit of an event just sealed is the likely one. */
const RECHECK = 100;
/** Differences named in the log line and in /readyz at most. */
const NAMED = 3;

const logger = new Logger('audit');

/**
 * Extends the audit chain over committed events every IPAM_AUDIT_SEAL_INTERVAL_MS, off the append
 * path (libs/event-store/src/seal-chain.ts). Every replica runs one; an advisory lock lets one seal
 * at a time, and the others check what it sealed. Each keeps in memory the head it sealed or
 * checked last: the database's owner can rewrite anything in the database, not this. When the
 * stored chain no longer extends that head, the replica stops sealing for good (until restarted),
 * logs an error naming the first differing link, and reports it (`difference`: /readyz?verbose,
 * /metrics); GET /v1/audit/head keeps serving the head sealed before. A replica that starts takes the
 * stored chain as it finds it (docs/operations.md, "Audit chain").
 */
@Injectable()
export class ChainSealer extends BackgroundLoop {
  private sealed: StoredHead | null = null;
  private broken: ChainBreak | null = null;
  /** checks (rounds and GET /v1/audit/head) one at a time, each from the head the previous one left */
  private turn: Promise<unknown> = Promise.resolve();
  private reported: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {
    super(logger, { failed: 'audit chain not sealed', recovered: 'sealing the audit chain again' });
  }

  /** The first link where the stored chain stopped extending the head sealed before, or null while it does. */
  get difference(): ChainBreak | null {
    return this.broken;
  }

  /**
   * The head to publish: the stored one once checked to extend the head held, else (after a
   * difference) the last head sealed or checked before it; null while the chain is empty.
   */
  async head(): Promise<StoredHead | null> {
    await this.step((sealed) => checkChainTail(this.db, sealed, RECHECK, BATCH));
    return this.sealed;
  }

  override async onApplicationShutdown(): Promise<void> {
    await super.onApplicationShutdown();
    await this.reported;
  }

  protected firstDelayMs(): number {
    return 0;
  }

  protected intervalMs(): number {
    return this.config.auditSealIntervalMs;
  }

  protected async round(): Promise<number> {
    const round = await this.step((sealed) => sealChain(this.db, { limit: BATCH, sealed, recheck: RECHECK }));
    return round && (round.sealed === BATCH || round.behind) ? 0 : this.intervalMs();
  }

  /** One check (and seal) from the head held; a difference stops every later one. */
  private step<T extends { head: StoredHead | null; break: ChainBreak | null }>(
    work: (sealed: StoredHead | null) => Promise<T>,
  ): Promise<T | null> {
    const run = this.turn.then(async () => {
      if (this.broken) return null;
      const outcome = await work(this.sealed);
      if (outcome.break) this.stop(outcome.break);
      else this.sealed = outcome.head;
      return outcome;
    });
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Stops sealing at once, then reads the whole chain back to the head held to name the first difference. */
  private stop(found: ChainBreak): void {
    this.broken = found;
    const sealed = this.sealed;
    this.reported = chainBreaks(this.db, sealed ?? undefined).then(
      (located) => this.report(sealed, [found, ...located]),
      (err: Error) => this.report(sealed, [found], ` (the whole chain could not be read: ${err.message})`),
    );
  }

  private report(sealed: StoredHead | null, breaks: ChainBreak[], note = ''): void {
    // stable: at the same link, the cheap check's finding (it knows the head held) comes first
    const sorted = breaks.sort((a, b) => a.link - b.link);
    const firsts = sorted.filter((b, i) => i === 0 || sorted[i - 1].link !== b.link);
    const more = firsts.length > NAMED ? `; and ${firsts.length - NAMED} more` : '';
    this.broken = {
      link: firsts[0].link,
      message: `${firsts
        .slice(0, NAMED)
        .map((b) => b.message)
        .join('; ')}${more}`,
    };
    const held = sealed ? `the head this replica sealed or checked last, ${sealed.count}:${sealed.hash}` : 'its own newest links';
    logger.error(
      `the audit chain no longer extends ${held}: first differing link ${this.broken.link}: ${this.broken.message}${note}. ` +
        'Sealing has stopped and nothing will be chained over it; see docs/operations.md, "When the audit chain breaks"',
    );
  }
}
