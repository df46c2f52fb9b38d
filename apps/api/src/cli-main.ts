import { createLog, logFormat } from '@ipledger/runtime';
import { runCli } from './cli';
import { EXIT_CODES, StartFailure } from './start-failure';

/**
 * `ipledger <command>` (the package's bin, dist/cli.js): the command's answer on stdout, a failure
 * as one log line on stderr and its exit code (EXIT_CODES: the database unreachable, a port taken, else 2).
 */
runCli(process.argv.slice(2), (line) => console.log(line))
  .then((code) => process.exit(code))
  .catch((err: Error) => {
    createLog({ format: logFormat() }, { context: 'cli' }).error(err.message, { command: process.argv[2] });
    process.exit(err instanceof StartFailure ? err.exitCode : EXIT_CODES.usage);
  });
