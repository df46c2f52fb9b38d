import type { List } from './api-types';

const TOKEN_KEY = 'ipledger.token';

/** The bearer token lives in session storage: it goes with the tab, never to disk. */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An answer other than 2xx, in API.md's error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** GET on the public API, with the session's token when there is one. */
export async function apiGet<T>(path: string, query?: Query): Promise<T> {
  const token = tokenStore.get();
  const res = await fetch(url(path, query), { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    // the API's error shape; a proxy in between may answer anything else
    const error = (body ?? {}) as Partial<Record<'error' | 'code' | 'message', string>>;
    throw new ApiError(
      res.status,
      error.error ?? res.statusText,
      error.code ?? 'HTTP_ERROR',
      error.message ?? `${res.status} ${res.statusText}`,
    );
  }
  return body as T;
}

/** Every item of a list, page after page through `continue`, at the API's largest page. */
export async function listAll<T>(path: string, query: Query = {}, onProgress?: (loaded: number) => void): Promise<T[]> {
  const items: T[] = [];
  let token: string | null = null;
  do {
    const page: List<T> = await apiGet<List<T>>(path, { ...query, limit: 1000, continue: token });
    items.push(...page.items);
    onProgress?.(items.length);
    token = page.continue;
  } while (token);
  return items;
}
