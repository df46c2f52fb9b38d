import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AllocateIpCommand, DomainError } from '@ipledger/domain';
import { Metrics } from '../metrics/metrics';
import { AllocationPipeline, type AllocateIpResult } from './allocation-pipeline';

/** POST /v1/allocations and the consumer's allocations: the pipeline (allocation-pipeline.ts), measured. */
@CommandHandler(AllocateIpCommand)
export class AllocateIpHandler implements ICommandHandler<AllocateIpCommand, AllocateIpResult> {
  constructor(
    private readonly pipeline: AllocationPipeline,
    private readonly metrics: Metrics,
  ) {}

  async execute(command: AllocateIpCommand): Promise<AllocateIpResult> {
    const started = performance.now();
    try {
      const { result, podCreatedAt } = await this.pipeline.run(command);
      this.metrics.allocations.inc({ outcome: result.created ? 'allocated' : 'existing' });
      if (result.created && podCreatedAt) this.observePodToAllocation(podCreatedAt);
      return result;
    } catch (err) {
      this.metrics.allocations.inc({ outcome: allocationOutcome(err) });
      throw err;
    } finally {
      this.metrics.allocationDuration.observe((performance.now() - started) / 1000);
    }
  }

  /** From the pod's creation in the API server (its clock) to its addresses committed (ours): a skew between the two shifts it. */
  private observePodToAllocation(podCreatedAt: string): void {
    const seconds = (Date.now() - Date.parse(podCreatedAt)) / 1000;
    if (Number.isFinite(seconds)) this.metrics.podCreationToAllocation.observe(Math.max(0, seconds));
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
