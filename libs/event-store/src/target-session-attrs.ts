import type { Client } from 'pg';
import { describeHost, type HostAddress, type TargetSessionAttrs } from './connection-string';
import type { ServerInfo } from './postgres-client';

const SESSION_STATE = `select pg_is_in_recovery() as in_recovery, current_setting('transaction_read_only') = 'on' as read_only,
  pg_postmaster_start_time()::text || ' ' || coalesce(inet_server_addr()::text || ':' || inet_server_port(), 'local') as identity`;

interface SessionState {
  in_recovery: boolean;
  read_only: boolean;
  identity: string;
}

/** What libpq's target_session_attrs checks of a new session, and which server it is. */
export async function readServer(client: Client, address: HostAddress): Promise<ServerInfo> {
  const {
    rows: [row],
  } = await client.query<SessionState>(SESSION_STATE);
  return { address, identity: `${describeHost(address)} ${row.identity}`, inRecovery: row.in_recovery, readOnly: row.read_only };
}

export type Accepts = (server: ServerInfo) => boolean;

const ACCEPTS: Record<Exclude<TargetSessionAttrs, 'prefer-standby'>, Accepts> = {
  any: () => true,
  'read-write': (s) => !s.readOnly,
  'read-only': (s) => s.readOnly,
  primary: (s) => !s.inRecovery,
  standby: (s) => s.inRecovery,
};

/** The walks over the host list: prefer-standby looks for a standby, then again for any server. */
export function passes(target: TargetSessionAttrs): Accepts[] {
  return target === 'prefer-standby' ? [ACCEPTS.standby, ACCEPTS.any] : [ACCEPTS[target]];
}

/** Why a server that answered was passed over, as the error names it. */
export function describeSession(server: ServerInfo): string {
  return server.inRecovery ? 'a standby (in recovery)' : server.readOnly ? 'read-only' : 'read-write';
}
