import { useState } from 'preact/hooks';
import { tokenStore } from './api-client';

/** Sets or forgets the bearer token; `onChange` makes every page load again with it. */
export function TokenForm({ onChange }: { onChange: () => void }) {
  const [draft, setDraft] = useState('');
  const saved = tokenStore.get() !== null;
  return (
    <form
      class="token"
      onSubmit={(e) => {
        e.preventDefault();
        if (draft) tokenStore.set(draft);
        else tokenStore.clear();
        setDraft('');
        onChange();
      }}
    >
      <input
        type="password"
        name="token"
        placeholder={saved ? 'token set (this tab)' : 'bearer token'}
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
        autocomplete="off"
      />
      <button type="submit">{draft || !saved ? 'Use token' : 'Forget'}</button>
    </form>
  );
}
