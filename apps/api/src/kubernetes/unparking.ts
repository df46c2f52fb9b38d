import type { Logger } from '@nestjs/common';
import { toDelivery, type Delivery, type Outcome, type Prepared } from '@ipledger/messaging';
import type { JetStreamManager, StoredMsg } from 'nats';
import type { Pool } from 'pg';
import { requestUnpark, setObjectStatus, takeUnparkRequests, type ParkedMessage } from '@ipledger/projections';

/** How the consumer reads a message and counts what came of it: the same for a parked message applied again. */
export interface Consuming {
  prepare(delivery: Delivery): Prepared;
  settled(delivery: Delivery, outcome: Outcome): void;
}

/**
 * Parked messages an operator asked for (`npm run cli -- unpark`) are read back from the stream
 * and applied once more, as the consumer applies a delivery; each request is taken by one replica.
 */
export class Unparking {
  constructor(
    private readonly db: Pool,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly maxAttempts: number,
    private readonly consuming: Consuming,
    private readonly logger: Logger,
  ) {}

  async redeliverRequested(): Promise<void> {
    for (const request of await takeUnparkRequests(this.db)) {
      const stored = await this.readParked(request);
      if (!stored) {
        const status =
          'parked: the message is no longer in the stream (aged out, or the stream was made again); the next change or sync of the object applies it';
        await setObjectStatus(this.db, request.kind, request.key, status);
        this.logger.warn(`${request.kind} ${request.key} ${status}`);
        continue;
      }
      // one more attempt: a failure parks it again at once
      const delivery = toDelivery(stored, stored.header, this.maxAttempts, request.streamEpoch);
      const read = this.consuming.prepare(delivery);
      // of a batch, only the parked object's change: the others were applied
      const prepared = 'parts' in read ? read.parts.find((p) => 'key' in p && p.key === `${request.kind}/${request.key}`) : read;
      if (!prepared || 'terminate' in prepared) continue;
      this.logger.log(`${request.kind} ${request.key}: applying parked message ${stored.seq} again`);
      await prepared.run().then(
        async (outcome) => {
          this.consuming.settled(delivery, outcome);
          // a lost race: asked again, for the next poll
          if ('retryAfterMs' in outcome) await requestUnpark(this.db, [request]).catch(() => undefined);
        },
        async (err: Error) => {
          // the database went away meanwhile: ask again
          await requestUnpark(this.db, [request]).catch(() => undefined);
          this.logger.warn(`${request.kind} ${request.key}: parked message not applied yet: ${err.message}`);
        },
      );
    }
  }

  /**
   * A parked message read back by its sequence, if its stream is still the one it was parked from:
   * in a stream made again since, that sequence is another message (the relist's newer state of
   * the object is what counts then). The stream is checked around the read, as it may be made
   * again meanwhile.
   */
  private async readParked(request: ParkedMessage): Promise<StoredMsg | null> {
    const same = () =>
      this.jsm.streams.info(this.stream).then(
        (info) => request.created !== null && info.created === request.created,
        () => false,
      );
    if (!(await same())) return null;
    const stored = await this.jsm.streams.getMessage(this.stream, { seq: request.parkedSequence }).catch(() => null);
    return stored && (await same()) ? stored : null;
  }
}
