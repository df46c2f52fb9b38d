import { TextOf } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';

export class PutClaimDto {
  @OptionalField()
  @TextOf('network', { required: false, example: 'k8s-pod-network', description: 'its network; absent: set by its first allocation' })
  network?: string;

  @OptionalField()
  @TextOf('cluster', { required: false, example: 'default', description: 'the cluster it is made in (default: `default`)' })
  cluster?: string;
}
