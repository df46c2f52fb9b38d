import { createServer } from 'node:net';

/**
 * The exit codes of the API and the CLI, each with one meaning, so a script (or a person) knows
 * what to look at without reading the log (docs/operations.md, "Exit codes").
 */
export const EXIT_CODES = {
  /** the API: a setting refused, or an unexpected failure (logged with its stack); the CLI: a check found a problem */
  failed: 1,
  /** the CLI: bad usage, or a failure of the command */
  usage: 2,
  /** `ipledger check`: no pod sync has completed (REST only, or the watcher never ran), so nothing was compared with pods */
  noPodSync: 3,
  /** a port it must listen on is taken or not allowed: PORT (and HOST), IPAM_EMBEDDED_POSTGRES_PORT */
  port: 4,
  /** PostgreSQL cannot be reached, or refuses the login: DATABASE_URL */
  database: 5,
} as const;

/** A start (of the API, or of a CLI command) that cannot succeed as configured: one line saying what to change, and its exit code. */
export class StartFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The API's own port refused by the system: taken, below 1024 without the right, or HOST not an address of this machine. */
export function listenFailure(err: unknown, host: string, port: number): StartFailure | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return new StartFailure(
      `port ${port} is in use (${where}: another ipledger, or another server): set PORT to a free port, e.g. PORT=${port < 65535 ? port + 1 : 8081} npm start`,
      EXIT_CODES.port,
      { cause: err },
    );
  if (code === 'EACCES')
    return new StartFailure(
      `not allowed to listen on ${where} (a port below 1024 needs root): set PORT to 1024 or above`,
      EXIT_CODES.port,
      {
        cause: err,
      },
    );
  if (code === 'EADDRNOTAVAIL')
    return new StartFailure(`HOST ${host} is not an address of this machine: set HOST to one of its addresses`, EXIT_CODES.port, {
      cause: err,
    });
  return null;
}

/**
 * Binds `host:port` for a moment, before anything starts: a taken port fails the start at once,
 * rather than after the database started and the migrations ran. Port 0 (any free one) always passes.
 */
export async function refuseUnavailablePort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  }).catch((err: unknown) => {
    throw listenFailure(err, host, port) ?? err;
  });
}
