import type { Block } from './api-types';
import { nodeColour } from './node-colour';
import { href } from './route';

/** The pool's blocks and the node holding each (`GET /v1/pools/{name}/blocks`, at the map's instant): what routes announce. */
export function NodeBlocks({ blocks, onZoom }: { blocks: readonly Block[]; onZoom: (cidr: string) => void }) {
  return (
    <section class="node-blocks">
      <h3>Node blocks ({blocks.length})</h3>
      {blocks.length === 0 ? (
        <p class="muted">no node has claimed a block</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>block</th>
              <th>node</th>
              <th>used</th>
              <th>borrowed</th>
            </tr>
          </thead>
          <tbody>
            {blocks.map((block) => (
              <tr key={block.cidr} data-block={block.cidr} data-node={block.node}>
                <td>
                  <button type="button" class="link" onClick={() => onZoom(block.cidr)} title="show this block's addresses">
                    <code>{block.cidr}</code>
                  </button>
                </td>
                <td>
                  <i class="dot" style={{ background: nodeColour(block.node) }} />
                  <a href={href(['nodes', block.node])}>{block.node}</a>
                </td>
                <td data-count="used">{block.used}</td>
                <td data-count="borrowed">{block.borrowed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
