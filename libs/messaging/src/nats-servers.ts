/** NATS_URL may list several servers of a cluster, comma-separated: the client starts with any that answers. */
export const natsServers = (natsUrl: string): string[] =>
  natsUrl
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);

/** IPAM_NATS_REPLICAS: copies of the stream a NATS cluster keeps (1, or 3 or 5 for a cluster to survive losing nodes). */
export function streamReplicas(env: NodeJS.ProcessEnv): number {
  const text = env.IPAM_NATS_REPLICAS;
  if (text === undefined || text === '') return 1;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 5)
    throw new Error(`IPAM_NATS_REPLICAS "${text}" must be a whole number from 1 to 5`);
  return value;
}
