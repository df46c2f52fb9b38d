import { IsOptional } from 'class-validator';
import { TextOf } from '../../http/limits';

export class ReleaseAllocationQueryDto {
  @IsOptional()
  @TextOf('uid', {
    required: false,
    description:
      "the pod's uid (the CNI plugin's DEL sends K8S_POD_UID): the addresses adopted for that pod, which ran before ipledger was its IPAM, are released too",
  })
  podUid?: string;
}
