import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AllocateIpCommand, DEFAULT_CLUSTER, DomainError } from '@ipledger/domain';
import { ClusterLabels } from '../metrics/cluster-labels';
import { Metrics } from '../metrics/metrics';
import { AllocationPipeline, type AllocateIpResult } from './allocation-pipeline';

/** POST /v1/allocations and the consumer's allocations: the pipeline (allocation-pipeline.ts), measured in their cluster. */
@CommandHandler(AllocateIpCommand)
export class AllocateIpHandler implements ICommandHandler<AllocateIpCommand, AllocateIpResult> {
  constructor(
    private readonly pipeline: AllocationPipeline,
    private readonly metrics: Metrics,
    private readonly clusters: ClusterLabels,
  ) {}

  async execute(command: AllocateIpCommand): Promise<AllocateIpResult> {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const asked = command.input.cluster ?? DEFAULT_CLUSTER;
    try {
      const { result, podCreatedAt } = await this.pipeline.run(command);
      const cluster = this.clusters.existing(asked);
      this.measure(cluster, result.created ? 'allocated' : 'existing', seconds());
      if (result.created && podCreatedAt) this.observePodToAllocation(cluster, podCreatedAt);
      return result;
    } catch (err) {
      const took = seconds();
      this.measure(await this.clusters.refused(asked), allocationOutcome(err), took);
      throw err;
    }
  }

  private measure(cluster: string, outcome: string, seconds: number): void {
    this.metrics.allocations.inc({ cluster, outcome });
    this.metrics.allocationDuration.observe({ cluster }, seconds);
  }

  /** From the pod's creation in the API server (its clock) to its addresses committed (ours): a skew between the two shifts it. */
  private observePodToAllocation(cluster: string, podCreatedAt: string): void {
    const seconds = (Date.now() - Date.parse(podCreatedAt)) / 1000;
    if (Number.isFinite(seconds)) this.metrics.podCreationToAllocation.observe({ cluster }, Math.max(0, seconds));
  }
}

const OUTCOMES: Partial<Record<string, string>> = {
  POOL_EXHAUSTED: 'exhausted',
  NO_ELIGIBLE_POOL: 'no-eligible-pool',
  IP_IN_USE: 'ip-in-use',
};

/** The `outcome` label of a refused or failed allocation: a few refusals by name, any other as refused. */
function allocationOutcome(err: unknown): string {
  if (!(err instanceof DomainError)) return 'error';
  return OUTCOMES[err.code] ?? 'refused';
}
