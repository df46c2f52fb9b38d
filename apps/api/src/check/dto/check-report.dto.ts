import { ApiProperty } from '@nestjs/swagger';
import { CHECK_PROBLEM_KINDS, type CheckProblemKind } from '../cluster-check';

export class PodSyncRefDto {
  @ApiProperty({ format: 'uuid' }) syncId!: string;
  @ApiProperty({ format: 'date-time', description: "when the watcher listed the pods (the watcher's clock; for the record)" })
  listedAt!: string;
  @ApiProperty({ format: 'date-time' }) completedAt!: string;
}

export class CheckProblemDto {
  @ApiProperty({ description: 'the cluster it was found in' }) cluster!: string;
  @ApiProperty({ enum: CHECK_PROBLEM_KINDS }) kind!: CheckProblemKind;
  @ApiProperty() message!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the rows that show the problem, as read' })
  evidence!: Record<string, unknown>;
}

export class CheckReportDto {
  @ApiProperty({ description: 'the cluster checked: its allocations, pods and nodes alone' }) cluster!: string;
  @ApiProperty({ format: 'date-time' }) checkedAt!: string;
  @ApiProperty({ type: PodSyncRefDto, nullable: true, description: 'the last complete pod sync compared with; null when none completed' })
  podSync!: PodSyncRefDto | null;
  @ApiProperty({ type: [CheckProblemDto], description: 'empty when the cluster and the allocations agree' })
  problems!: CheckProblemDto[];
}
