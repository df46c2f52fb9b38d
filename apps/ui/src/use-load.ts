import { useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  /** true from the render where `deps` changed until their answer arrives (data may still be the previous answer) */
  loading: boolean;
}

/** Runs `load` whenever `deps` (strings and numbers) change; an answer that arrives after a newer request started is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: ReadonlyArray<string | number | null>): Loaded<T> {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key: string | null; data: T | null; error: unknown }>({ key: null, data: null, error: null });
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ key, data, error: null }),
      (error: unknown) => current && setState({ key, data: null, error }),
    );
    return () => {
      current = false;
    };
  }, [key]);
  return { data: state.data, error: state.error, loading: state.key !== key };
}
