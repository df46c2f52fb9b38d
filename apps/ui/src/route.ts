import { useEffect, useState } from 'preact/hooks';

/** The page's place lives in the hash (`#/pools/rack-7?at=...`), so a static server needs no fallback and links can be shared. */
export interface Route {
  segments: string[];
  params: URLSearchParams;
}

function current(): Route {
  const [path, search = ''] = location.hash.replace(/^#/, '').split('?');
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function href(segments: string[], params: Record<string, string | null | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const query = search.toString();
  return `#/${segments.map(encodeURIComponent).join('/')}${query ? `?${query}` : ''}`;
}

/** Changes query parameters of the current place without adding a history entry per change (a slider moves often). */
export function setParams(changes: Record<string, string | null>): void {
  const { segments, params } = current();
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) params.delete(key);
    else params.set(key, value);
  }
  const next = href(segments, Object.fromEntries(params));
  history.replaceState(null, '', next);
  dispatchEvent(new HashChangeEvent('hashchange'));
}
