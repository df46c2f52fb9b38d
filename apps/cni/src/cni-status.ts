import type { ApiClient } from './api-client';
import { CNI_CODES, CniError } from './cni-error';

/** STATUS (1.1.0): the plugin can serve ADD when the API is ready (database and bus reachable). */
export async function cniStatus(api: ApiClient): Promise<void> {
  try {
    const answer = await api.request('GET', '/readyz');
    if (answer.status === 200) return;
    throw new CniError(CNI_CODES.NOT_AVAILABLE, `the ipledger API is not ready: /readyz answered ${answer.status}`);
  } catch (err) {
    if (err instanceof CniError && err.code === CNI_CODES.TRY_AGAIN_LATER) {
      throw new CniError(CNI_CODES.NOT_AVAILABLE, err.msg, err.details);
    }
    throw err;
  }
}
