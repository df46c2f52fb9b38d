import { ApiError } from './api-client';

/** A failed call as the API answered it; a 401 or 403 says so plainly and points at the token form. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!(error instanceof ApiError)) return <div class="error">{String((error as Error)?.message ?? error)}</div>;
  const access = error.status === 401 || error.status === 403;
  return (
    <div class={`error${access ? ' access' : ''}`} role="alert" data-status={error.status}>
      <strong>
        {error.status} {error.error}
      </strong>{' '}
      <code>{error.code}</code> {error.message}
      {error.status === 401 && (
        <div class="hint">This API needs a token: enter one above (it is kept in this tab's session storage only).</div>
      )}
      {error.status === 403 && <div class="hint">The token's role may not read this; enter another token above.</div>}
    </div>
  );
}
