import { createLog, logFormat } from '@ipledger/runtime';
import { runCli } from './cli';

/** `ipledger <command>` (the package's bin, dist/cli.js): the command's answer on stdout, a failure as a log line on stderr */
runCli(process.argv.slice(2), (line) => console.log(line))
  .then((code) => process.exit(code))
  .catch((err: Error) => {
    createLog({ format: logFormat() }, { context: 'cli' }).error(err.message, { command: process.argv[2] });
    process.exit(2);
  });
