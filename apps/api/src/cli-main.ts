import { runCli } from './cli';

/** `ipledger <command>` (the package's bin, dist/cli.js) */
runCli(process.argv.slice(2), (line) => console.log(line))
  .then((code) => process.exit(code))
  .catch((err: Error) => {
    console.error(err.message);
    process.exit(2);
  });
