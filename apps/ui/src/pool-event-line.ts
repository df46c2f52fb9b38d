import type { RecordedEvent } from './api-types';
import { rangeOwnerText } from './range-owner';

/** An allocation's cluster: events of the default cluster (and every one before clusters) name none. */
const clusterOf = (cluster: string | undefined) => cluster ?? 'default';

/** A prefix length's `/n`, to tell a grow from a shrink: a shorter prefix is a larger network. */
const prefixLength = (cidr: string) => Number(cidr.slice(cidr.indexOf('/') + 1));

/** One line a pool event: what changed, in the words an operator uses. */
export function poolEventLine(event: RecordedEvent): string {
  // the fields each event type records (docs/api.md, Audit)
  const d = event.data as Record<string, string> & { reserved?: string[] };
  switch (event.type) {
    case 'IpAllocated':
      return `${d.ip} → ${d.namespace}/${d.pod} on ${d.node} in cluster ${clusterOf(d.cluster)}`;
    case 'IpReleased':
      return `${d.ip} released (${d.handle}) in cluster ${clusterOf(d.cluster)}`;
    case 'RangeReserved':
      return `${d.start}–${d.end} for ${rangeOwnerText({ namespace: d.namespace, name: d.name })}`;
    case 'RangeReleased':
      return `range of ${rangeOwnerText({ namespace: d.namespace, name: d.name })} released`;
    case 'PoolCreated':
      return `${d.cidr}${d.reserved?.length ? `, reserved ${d.reserved.join(', ')}` : ''}`;
    case 'PoolUpdated':
      return Object.keys(d)
        .filter((k) => k !== 'name')
        .map((k) => `${k}: ${JSON.stringify(d[k])}`)
        .join(', ');
    case 'PoolResized':
      return `${prefixLength(d.cidr) < prefixLength(d.previousCidr) ? 'grown' : 'shrunk'} from ${d.previousCidr} to ${d.cidr}`;
    case 'BlockClaimed':
      return `block ${d.cidr} claimed by ${d.node}`;
    case 'BlockReleased':
      return `block ${d.cidr} of ${d.node} released (${d.reason === 'idle' ? 'empty' : 'node deleted'})`;
    default:
      return '';
  }
}
