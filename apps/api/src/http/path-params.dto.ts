import type { IpSetKind } from '@ipledger/domain';
import { CheckedBySchema } from './body-schema';
import { TextOf } from './limits';
import { OptionalField } from './optional-field';

/**
 * The routes' path parameters, each of its kind (TextOf): checked as a body field or a query
 * parameter of the same kind is, by their compiled schema (the CNI's DEL and GET of a handle are
 * hot routes).
 */
@CheckedBySchema()
export class PoolNameParams {
  @TextOf('poolName') name!: string;
}

@CheckedBySchema()
export class NodeNameParams {
  @TextOf('nodeName') name!: string;
  /** present on the routes under `/v1/clusters/{cluster}` (RouteCluster reads and checks it) */
  @OptionalField() @TextOf('cluster', { required: false }) cluster?: string;
}

@CheckedBySchema()
export class ClusterNameParams {
  @TextOf('cluster') name!: string;
}

@CheckedBySchema()
export class ClaimNameParams {
  @TextOf('claim', { description: 'a `/` in it written `%2F`' }) name!: string;
}

@CheckedBySchema()
export class HandleParams {
  @TextOf('handle') handle!: string;
  /** present on the routes under `/v1/clusters/{cluster}` (RouteCluster reads and checks it) */
  @OptionalField() @TextOf('cluster', { required: false }) cluster?: string;
}

@CheckedBySchema()
export class IpParams {
  @TextOf('address', { example: '10.4.0.17' }) ip!: string;
}

@CheckedBySchema()
export class StatefulSetParams {
  @TextOf('namespace') namespace!: string;
  @TextOf('workloadName') name!: string;
  /** present on the routes under `/v1/clusters/{cluster}` (RouteCluster reads and checks it) */
  @OptionalField() @TextOf('cluster', { required: false }) cluster?: string;
}

export const IP_SET_KINDS: readonly IpSetKind[] = ['Deployment', 'ReplicaSet'];

@CheckedBySchema()
export class IpSetParams {
  @TextOf('namespace') namespace!: string;
  @TextOf('workloadKind', { enum: IP_SET_KINDS }) kind!: string;
  @TextOf('workloadName') name!: string;
  /** present on the routes under `/v1/clusters/{cluster}` (RouteCluster reads and checks it) */
  @OptionalField() @TextOf('cluster', { required: false }) cluster?: string;
}

/** The routes under `/v1/clusters/{cluster}` that name nothing else (a list, a create). */
@CheckedBySchema()
export class ClusterPrefixParams {
  @OptionalField() @TextOf('cluster', { required: false }) cluster?: string;
}
