import { Logger } from '@nestjs/common';
import { describeHost } from '@ipledger/event-store';
import type { Pool } from 'pg';
import type { DatabaseServer } from '../infrastructure/database-server';
import type { CheckOutcome, ReadinessCheck } from './readiness-check';

interface Replication {
  names: string;
  standbys: number;
  synchronous: number;
  /** false when this role may not see pg_stat_replication's sync_state (it needs pg_monitor) */
  visible: boolean;
}

const READ_REPLICATION = `select current_setting('synchronous_standby_names') as names,
  count(r.pid)::int as standbys,
  count(r.pid) filter (where r.sync_state in ('sync', 'quorum'))::int as synchronous,
  coalesce(bool_and(r.sync_state is not null) filter (where r.pid is not null), true) as visible
  from (select 1) one left join pg_stat_replication r on true`;

const WHY =
  'an acknowledged allocation can be lost in a failover, and its address handed out twice ' +
  '(Patroni: synchronous_mode: true; CloudNativePG: minSyncReplicas >= 1)';

/**
 * Whether the server the API writes to has a synchronous standby: only then does an allocation
 * acknowledged to kubelet survive a failover. Reported in /readyz?verbose as `replication`, logged
 * once per server when there is none (but for the embedded server of a try on one machine, which
 * never has one), and required for readiness with IPAM_REQUIRE_SYNC_REPLICATION=true.
 */
export function replicationCheck(
  db: Pool,
  server: DatabaseServer,
  required: boolean,
  embedded: boolean,
): ReadinessCheck & { atStart(): Promise<void> } {
  const logger = new Logger('replication');
  let warned: string | undefined;
  const run = async (): Promise<CheckOutcome> => {
    const { rows } = await db.query<Replication>(READ_REPLICATION);
    const state = rows[0];
    const where = server.current ? describeHost(server.current.address) : 'the database server';
    const detail = {
      synchronousStandbyNames: state.names,
      standbys: state.standbys,
      synchronousStandbys: state.visible ? state.synchronous : null,
    };
    if (state.names !== '' && (state.synchronous > 0 || (!state.visible && state.standbys > 0))) {
      const unseen = state.visible
        ? {}
        : { message: 'sync_state is hidden from this role: grant it pg_monitor to see which standby is synchronous' };
      return { status: 'ok', ...detail, ...unseen };
    }
    const message = `${where} has no synchronous standby (synchronous_standby_names '${state.names}', ${state.standbys} standby(s)): ${WHY}`;
    if (!embedded && warned !== server.current?.identity) {
      warned = server.current?.identity;
      logger.warn(message);
    }
    return { status: 'failed', message, ...detail };
  };
  return {
    name: 'replication',
    required,
    run,
    atStart: () => run().then(() => undefined),
  };
}
