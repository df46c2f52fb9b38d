import { useState } from 'preact/hooks';
import { apiGet } from './api-client';
import type { NodePools } from './api-types';
import { ErrorBox } from './error-box';
import { href } from './route';
import { useLoad } from './use-load';

interface Question {
  pool: string;
  matchLabel: string;
}

const FIELDS: ReadonlyArray<{ name: keyof Question; placeholder: string }> = [
  { name: 'pool', placeholder: 'pool name' },
  { name: 'matchLabel', placeholder: 'matchLabel to try (optional), e.g. pool-group' },
];

/**
 * "Why not this pool?": one pool asked about by name (`explain=true&pool=`), under the rule the
 * node's allocations get (the server default) or a `matchLabel` tried here. The API says every
 * reason, the rule's own included, which the list of left-out pools never shows. `path`: the
 * node's in the API (nodePath: in its cluster).
 */
export function WhyNotPool({ path }: { path: string }) {
  const [draft, setDraft] = useState<Question>({ pool: '', matchLabel: '' });
  const [asked, setAsked] = useState<Question | null>(null);
  const answer = useLoad(
    () =>
      asked
        ? apiGet<NodePools>(`${path}/pools`, {
            explain: true,
            pool: asked.pool,
            matchLabel: asked.matchLabel,
          })
        : Promise.resolve(null),
    [path, asked?.pool ?? null, asked?.matchLabel ?? null],
  );
  const excluded = answer.data?.excluded?.[0];
  return (
    <section class="why-not">
      <h3>Why not this pool?</h3>
      <form
        class="why-not-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (draft.pool.trim()) setAsked({ pool: draft.pool.trim(), matchLabel: draft.matchLabel.trim() });
        }}
      >
        {FIELDS.map(({ name, placeholder }) => (
          <input
            key={name}
            name={name}
            aria-label={placeholder}
            placeholder={placeholder}
            value={draft[name]}
            onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
          />
        ))}
        <button type="submit">Explain</button>
      </form>
      {answer.error ? <ErrorBox error={answer.error} /> : null}
      {asked && answer.data && !answer.loading && (
        <p class="answer" data-pool={asked.pool} data-eligible={excluded ? 'no' : 'yes'}>
          <a href={href(['pools', asked.pool])}>{asked.pool}</a>{' '}
          {excluded ? (
            <>
              is left out: <span class="reason">{excluded.reason}</span>
            </>
          ) : (
            'is eligible: an allocation for this node would take an address of it'
          )}
          <span class="muted"> (rule from {answer.data.chosenBy ?? 'the request'})</span>
        </p>
      )}
    </section>
  );
}
