import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { runMigrations, SchemaAheadError } from '@ipledger/event-store';
import { redactUrl } from '@ipledger/runtime';
import { accessConfig, loadConfig } from './config';
import { createApp } from './create-app';
import { Readiness } from './health/readiness';
import { AppLogger } from './infrastructure/app-logger';
import { openDatabase } from './database';
import { plainHttpWithTokens } from './http/plain-http-warning';
import { MIGRATIONS_DIR } from './migrations-dir';
import { databaseFailure, databaseVariable } from './database-failure';
import { listenFailure, refuseUnavailablePort, StartFailure } from './start-failure';

const appLogger = new AppLogger();
// lines written before the app exists (the embedded database, migrations) take the same form
Logger.overrideLogger(appLogger);

async function main(): Promise<void> {
  const logger = new Logger('ipledger');
  // who may listen where is decided before anything starts: a refused exposure (or a taken port) starts no database
  const access = accessConfig(process.env);
  await refuseUnavailablePort(access.host, access.port);
  // on SIGINT/SIGTERM Nest closes the app (createApp enables its shutdown hooks), then the embedded
  // server, which hooks the same signals, stops before the process exits
  const database = await openDatabase(process.env, (line) => logger.log(line));
  const config = { ...loadConfig(database.env), embeddedDatabase: database.embedded };
  if (config.migrate) {
    const applied = await runMigrations(config.migrationsDatabaseUrl, MIGRATIONS_DIR, (line) => logger.log(line)).catch((err: unknown) => {
      throw databaseFailure(err, config.migrationsDatabaseUrl, databaseVariable(process.env)) ?? err;
    });
    logger.log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
  } else {
    logger.log('IPAM_MIGRATE=off: no migrations at start; /readyz answers 503 while the schema is behind this release');
  }
  const app = await createApp(config, { logger: appLogger });
  await app.listen(config.port, config.host).catch((err: unknown) => {
    throw listenFailure(err, config.host, config.port) ?? err;
  });
  const where = `${config.host}:${config.port}`;
  if (config.tokensFile || config.tokens.size || config.tokenReview) {
    const review =
      config.tokenReview &&
      `node tokens reviewed by ${[...config.tokenReview.connections].map(([cluster, c]) => `${c.source} (cluster ${cluster})`).join(', ')}`;
    const tokens = config.tokensFile ? `tokens from ${config.tokensFile}` : config.tokens.size ? `${config.tokens.size} token(s)` : null;
    logger.log(`listening on ${where} with ${[tokens, review].filter(Boolean).join(' and ')}`);
  } else if (config.auth === 'off') {
    logger.warn(`IPAM_AUTH=off: access checks are OFF, listening on ${where}: anyone who reaches it may read and change everything`);
  } else {
    logger.warn(`IPAM_TOKENS and IPAM_TOKENS_FILE are not set: access checks are OFF, listening on loopback only (${where})`);
  }
  const clearText = plainHttpWithTokens(config);
  if (clearText) logger.warn(clearText);
  if (!config.migrate) {
    const schema = (await app.get(Readiness).report()).checks.schema;
    if (schema.status !== 'ok') logger.warn(`not ready: ${schema.message}`);
  }
  logger.log(
    config.kubernetes
      ? `consuming Kubernetes objects from ${redactUrl(config.natsUrl)}`
      : 'Kubernetes consumer off (set NATS_URL to turn it on): REST only',
  );
  logger.log(
    config.defaultMatchLabel
      ? `allocations that name no pool rule use: matchLabel ${config.defaultMatchLabel} (IPAM_DEFAULT_MATCH_LABEL)`
      : 'allocations that name no pool rule use: every pool (set IPAM_DEFAULT_MATCH_LABEL, e.g. pool-group, for matchLabel)',
  );
}

main().catch((err: unknown) => {
  // a start that cannot succeed as configured: one line saying what to change, no stack
  if (err instanceof StartFailure) {
    appLogger.error(err.message, 'ipledger');
    process.exit(err.exitCode);
  }
  // a newer schema is the operator's to resolve, not a fault of this code: its one line, no stack
  appLogger.error(err instanceof SchemaAheadError ? err.message : err, 'ipledger');
  process.exit(1);
});
