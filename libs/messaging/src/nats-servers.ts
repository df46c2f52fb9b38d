/** NATS_URL may list several servers of a cluster, comma-separated: the client starts with any that answers. */
export const natsServers = (natsUrl: string): string[] =>
  natsUrl
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
