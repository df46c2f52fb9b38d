import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { runMigrations } from '@ipledger/event-store';
import { redactUrl } from '@ipledger/runtime';
import { accessConfig, loadConfig } from './config';
import { createApp } from './create-app';
import { Readiness } from './health/readiness';
import { AppLogger } from './infrastructure/app-logger';
import { openDatabase } from './database';
import { MIGRATIONS_DIR } from './migrations-dir';

const appLogger = new AppLogger();
// lines written before the app exists (the embedded database, migrations) take the same form
Logger.overrideLogger(appLogger);

async function main(): Promise<void> {
  const logger = new Logger('ipledger');
  // who may listen where is decided before anything starts: a refused exposure starts no database
  accessConfig(process.env);
  // on SIGINT/SIGTERM Nest closes the app (createApp enables its shutdown hooks), then the embedded
  // server, which hooks the same signals, stops before the process exits
  const database = await openDatabase(process.env, (line) => logger.log(line));
  const config = loadConfig(database.env);
  if (config.migrate) {
    const applied = await runMigrations(config.migrationsDatabaseUrl, MIGRATIONS_DIR, (line) => logger.log(line));
    logger.log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
  } else {
    logger.log('IPAM_MIGRATE=off: no migrations at start; /readyz answers 503 while the schema is behind this release');
  }
  const app = await createApp(config, { logger: appLogger });
  await app.listen(config.port, config.host);
  const where = `${config.host}:${config.port}`;
  if (config.tokensFile || config.tokens.size) {
    logger.log(`listening on ${where} with ${config.tokensFile ? `tokens from ${config.tokensFile}` : `${config.tokens.size} token(s)`}`);
  } else if (config.auth === 'off') {
    logger.warn(`IPAM_AUTH=off: access checks are OFF, listening on ${where}: anyone who reaches it may read and change everything`);
  } else {
    logger.warn(`IPAM_TOKENS and IPAM_TOKENS_FILE are not set: access checks are OFF, listening on loopback only (${where})`);
  }
  if (!config.migrate) {
    const schema = (await app.get(Readiness).report()).checks.schema;
    if (schema.status !== 'ok') logger.warn(`not ready: ${schema.message}`);
  }
  logger.log(
    config.kubernetes
      ? `consuming Kubernetes objects from ${redactUrl(config.natsUrl)}`
      : 'Kubernetes consumer off (set NATS_URL to turn it on): REST only',
  );
}

main().catch((err: unknown) => {
  appLogger.error(err, 'ipledger');
  process.exit(1);
});
