import { useState } from 'preact/hooks';
import { ClaimPage, ClaimsPage } from './claims-page';
import { FleetPage } from './fleet-page';
import { NodePage } from './node-page';
import { PoolPage } from './pool-page';
import { PoolsPage } from './pools-page';
import { href, useRoute } from './route';
import { TokenForm } from './token-form';

export function App() {
  const route = useRoute();
  // bumped by "Reload" and by a new token: every page loads again
  const [reload, setReload] = useState(0);
  const [node, setNode] = useState('');
  const [section, name] = route.segments;
  const again = () => setReload((n) => n + 1);
  return (
    <>
      <header class="top">
        <a class="brand" href={href(['pools'])}>
          ipledger
        </a>
        <nav>
          <a href={href(['pools'])} class={section === 'pools' || !section ? 'active' : ''}>
            Pools
          </a>
          <a href={href(['fleet'])} class={section === 'fleet' ? 'active' : ''}>
            Fleet
          </a>
          <a href={href(['claims'])} class={section === 'claims' ? 'active' : ''}>
            Claims
          </a>
          <form
            class="node-search"
            onSubmit={(e) => {
              e.preventDefault();
              if (node) location.hash = href(['nodes', node]);
            }}
          >
            <input name="node" placeholder="node name" value={node} onInput={(e) => setNode(e.currentTarget.value)} />
            <button type="submit">Node</button>
          </form>
        </nav>
        <button type="button" class="reload" onClick={again} title="load again">
          ↻ Reload
        </button>
        <TokenForm onChange={again} />
      </header>
      <main>
        {section === 'nodes' && name ? (
          // keyed by cluster and name: another node's page starts empty, never with the last node's answers
          <NodePage key={`${route.params.get('cluster')}/${name}`} name={name} cluster={route.params.get('cluster')} reload={reload} />
        ) : section === 'claims' && name ? (
          <ClaimPage key={name} name={name} reload={reload} />
        ) : section === 'claims' ? (
          <ClaimsPage route={route} reload={reload} />
        ) : section === 'fleet' ? (
          <FleetPage route={route} reload={reload} />
        ) : section === 'pools' && name ? (
          <PoolPage name={name} route={route} reload={reload} />
        ) : (
          <PoolsPage route={route} reload={reload} />
        )}
      </main>
    </>
  );
}
