import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { parseTokens, type Config, type TokenGrant } from '../config';
import { Metrics } from '../metrics/metrics';
import { CONFIG } from './tokens';

interface Entry {
  digest: Buffer;
  grant: TokenGrant;
}

const digest = (token: string) => createHash('sha256').update(token).digest();

const entriesOf = (tokens: Map<string, TokenGrant>): Entry[] => [...tokens].map(([token, grant]) => ({ digest: digest(token), grant }));

/** How often IPAM_TOKENS_FILE is looked at (a stat): a mounted Secret changes by a symlink swap, which inotify can miss. */
const FILE_POLL_MS = 1000;

/**
 * The bearer tokens the API accepts, from IPAM_TOKENS or IPAM_TOKENS_FILE (re-read when it
 * changes; a file that no longer parses keeps the previous tokens and is logged).
 */
@Injectable()
export class TokenRegistry implements OnModuleDestroy {
  private readonly logger = new Logger('tokens');
  private entries: Entry[];
  /** checks are on with IPAM_TOKENS set or with a token file, even an empty one */
  readonly enabled: boolean;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly metrics: Metrics,
  ) {
    this.entries = entriesOf(config.tokens);
    this.enabled = config.tokens.size > 0 || config.tokensFile !== null;
    if (config.tokensFile) {
      this.entries = entriesOf(this.readFile(config.tokensFile));
      watchFile(config.tokensFile, { interval: FILE_POLL_MS }, this.onFileChange);
    }
  }

  /**
   * The grant of a token, comparing digests in constant time against every entry (no early exit):
   * how long a refusal takes says nothing about how close a guess was.
   */
  find(token: string): TokenGrant | undefined {
    const given = digest(token);
    let found: TokenGrant | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, given)) found = entry.grant;
    }
    return found;
  }

  onModuleDestroy(): void {
    if (this.config.tokensFile) unwatchFile(this.config.tokensFile, this.onFileChange);
  }

  private readFile(file: string): Map<string, TokenGrant> {
    return parseTokens(readFileSync(file, 'utf8'), `IPAM_TOKENS_FILE ${file}`);
  }

  private readonly onFileChange = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino && current.size === previous.size) return;
    const file = this.config.tokensFile!;
    try {
      this.entries = entriesOf(this.readFile(file));
      this.metrics.tokenFileReads.inc({ outcome: 'loaded' });
      this.logger.log(`re-read ${file}: ${this.entries.length} token(s)`);
    } catch (err) {
      this.metrics.tokenFileReads.inc({ outcome: 'refused' });
      this.logger.error(`kept the previous tokens: ${(err as Error).message}`);
    }
  };
}
