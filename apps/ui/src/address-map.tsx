import { familyBits, formatCidr, parseCidr } from '@ipledger/ip';
import { useMemo, useState } from 'preact/hooks';
import { ADDRESS_STATES, mapCells, type AddressCell, type AddressState, type BlockCell, type PoolLayout } from './address-map-model';
import type { Block, StatefulSetRange } from './api-types';
import { claimOfHandle, networkText } from './fleet-model';
import { ipSetOf, rangeOwnerText } from './range-owner';
import { formatCount, share } from './format';
import { nodeColour } from './node-colour';

const STATE_LABELS: Record<AddressState, string> = {
  allocated: 'allocated',
  gateway: 'gateway',
  reserved: 'reserved',
  range: 'StatefulSet range',
  ipset: 'ip-set',
  free: 'free',
  unusable: 'network / broadcast',
};

const COLOURS: Record<AddressState, string> = {
  allocated: 'var(--allocated)',
  gateway: 'var(--gateway)',
  reserved: 'var(--reserved)',
  range: 'var(--range)',
  ipset: 'var(--ipset)',
  free: 'var(--free)',
  unusable: 'var(--unusable)',
};

/** A block's colour is its counts laid side by side, so a mostly free /24 looks mostly free. */
function blockBackground(block: BlockCell): string {
  const total = Object.values(block.counts).reduce((a, b) => a + b, 0n);
  let at = 0;
  const stops: string[] = [];
  for (const state of ADDRESS_STATES) {
    const n = block.counts[state];
    if (n === 0n) continue;
    // a single held address in a huge block still gets a visible sliver
    const width = Math.max(share(n, total) * 100, state === 'free' ? 0 : 4);
    const end = Math.min(100, at + width);
    stops.push(`${COLOURS[state]} ${at}% ${end}%`);
    at = end;
  }
  return `linear-gradient(to right, ${stops.join(', ')})`;
}

/** What fits in a cell: an address's last group; a block's place among its 256 (IPv4: its last two octets; IPv6: its index in hex). */
function shortLabel(cell: AddressCell | BlockCell, index: number): string {
  if (cell.kind === 'address') return cell.ip.includes(':') ? cell.ip.slice(cell.ip.lastIndexOf(':') + 1) || '0' : cell.ip.split('.')[3];
  const [address] = cell.cidr.split('/');
  return address.includes(':') ? `:${index.toString(16).padStart(2, '0')}` : `.${address.split('.').slice(2).join('.')}`;
}

/** The nodes holding blocks in a map cell, each with how many of its blocks lie there. */
function NodesOf({ blocks }: { blocks: readonly Block[] }) {
  const perNode = new Map<string, number>();
  for (const { node } of blocks) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  return (
    <div data-block-nodes>
      node blocks:{' '}
      {[...perNode].map(([node, n], i) => (
        <span key={node}>
          {i > 0 ? ', ' : ''}
          <i class="dot" style={{ background: nodeColour(node) }} />
          {node}
          {n > 1 ? ` ×${n}` : ''}
        </span>
      ))}
    </div>
  );
}

/** Whose range an address lies in: a StatefulSet's, or a Deployment's or ReplicaSet's ip-set. */
function RangeOwner({ range }: { range: StatefulSetRange }) {
  return (
    <div>
      <b>{rangeOwnerText(range)}</b> ({range.start} – {range.end})
    </div>
  );
}

function Tooltip({ cell, network }: { cell: AddressCell | BlockCell; network: string | null }) {
  if (cell.kind === 'block') {
    return (
      <>
        <div class="tip-title">{cell.cidr}</div>
        {ADDRESS_STATES.filter((s) => cell.counts[s] > 0n).map((s) => (
          <div key={s}>
            <i class={`dot ${s}`} /> {formatCount(cell.counts[s])} {STATE_LABELS[s]}
          </div>
        ))}
        {cell.nodeBlocks.length > 0 && <NodesOf blocks={cell.nodeBlocks} />}
        <div class="muted">click to zoom in</div>
      </>
    );
  }
  const h = cell.holder;
  return (
    <>
      <div class="tip-title">
        {cell.ip} <span class={`pill ${cell.state}`}>{STATE_LABELS[cell.state]}</span>
      </div>
      {h && (
        <dl class="holder">
          <dt>cluster</dt>
          <dd data-holder="cluster">{h.cluster}</dd>
          <dt>network</dt>
          <dd data-holder="network">{networkText(network)}</dd>
          {claimOfHandle(h.handle) !== null ? (
            <>
              <dt>claim</dt>
              <dd data-holder="claim">{claimOfHandle(h.handle)}</dd>
            </>
          ) : null}
          <dt>pod</dt>
          <dd data-holder="pod">{h.pod}</dd>
          <dt>namespace</dt>
          <dd>{h.namespace}</dd>
          <dt>node</dt>
          <dd>{h.node}</dd>
          <dt>handle</dt>
          <dd>
            <code>{h.handle}</code>
          </dd>
        </dl>
      )}
      {h?.heldForNode && (
        <div data-held-for-node={h.heldForNode.node}>
          <span class="pill held">held for node</span> {h.heldForNode.node}: pod deleted{' '}
          {h.heldForNode.cause === 'node-not-ready' ? 'while the node was not Ready' : 'with its containers running'} at{' '}
          {h.heldForNode.since}; freed by the node's CNI DEL, the node's deletion, or its grace period
        </div>
      )}
      {cell.nodeBlock && (
        <div data-node-block={cell.nodeBlock.cidr}>
          <i class="dot" style={{ background: nodeColour(cell.nodeBlock.node) }} />
          block <code>{cell.nodeBlock.cidr}</code> of node <b>{cell.nodeBlock.node}</b>
          {h?.borrowed ? <span class="pill held">borrowed by {h.node}</span> : null}
        </div>
      )}
      {cell.range && <RangeOwner range={cell.range} />}
      <div class="muted">click for this address's history</div>
    </>
  );
}

/**
 * The pool's address map: one cell an address up to 4,096 addresses, else 256 blocks with their
 * counts (click one to zoom in, down to single addresses, IPv6 included).
 */
export function AddressMap({
  layout,
  network,
  view,
  selected,
  onZoom,
  onSelect,
}: {
  layout: PoolLayout;
  /** the pool's isolated network (null: the shared space), named with each holder */
  network: string | null;
  view: string | null;
  selected: string | null;
  onZoom: (cidr: string | null) => void;
  onSelect: (ip: string) => void;
}) {
  const viewCidr = useMemo(() => (view ? parseCidr(view) : layout.cidr), [view, layout]);
  const cells = useMemo(() => mapCells(layout, viewCidr), [layout, viewCidr]);
  const [hover, setHover] = useState<{ i: number; x: number; y: number } | null>(null);
  const columns = cells.length <= 256 ? 16 : cells.length <= 1024 ? 32 : 64;
  const parentPrefix = viewCidr.prefixLength - 8;
  // the block one level up, as its network address (null: the whole pool)
  const up =
    view === null || parentPrefix <= layout.cidr.prefixLength
      ? null
      : formatCidr({
          ...viewCidr,
          network: viewCidr.network & ~((1n << BigInt(familyBits(viewCidr.family) - parentPrefix)) - 1n),
          prefixLength: parentPrefix,
        });
  const hovered = hover ? cells[hover.i] : null;

  const cellAt = (target: EventTarget | null) => {
    const el = (target as HTMLElement | null)?.closest<HTMLElement>('[data-i]');
    return el ? { el, i: Number(el.dataset.i) } : null;
  };

  return (
    <div class="map-panel">
      <div class="map-head">
        <nav class="crumbs">
          {view ? (
            <>
              <button type="button" class="link" onClick={() => onZoom(null)}>
                whole pool
              </button>
              {up ? (
                <>
                  {' › '}
                  <button type="button" class="link" onClick={() => onZoom(up)}>
                    {up}
                  </button>
                </>
              ) : null}
              {' › '}
              <code>{view}</code>
            </>
          ) : (
            <span>
              {cells[0]?.kind === 'block'
                ? `256 blocks of /${viewCidr.prefixLength + 8}: click one to zoom in`
                : `${cells.length} addresses`}
            </span>
          )}
        </nav>
        <ul class="legend">
          {ADDRESS_STATES.map((s) => (
            <li key={s}>
              <i class={`dot ${s}`} />
              {STATE_LABELS[s]}
            </li>
          ))}
          {layout.nodeBlocks.length > 0 && (
            <li>
              <i class="dot node-bar" />
              node's block (bar in the node's colour)
            </li>
          )}
        </ul>
      </div>
      <div
        class={`grid cols-${columns}`}
        style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}
        onMouseOver={(e) => {
          const hit = cellAt(e.target);
          if (!hit) return;
          const box = hit.el.getBoundingClientRect();
          setHover({ i: hit.i, x: box.left + box.width / 2, y: box.bottom });
        }}
        onMouseLeave={() => setHover(null)}
        onClick={(e) => {
          const hit = cellAt(e.target);
          if (!hit) return;
          const cell = cells[hit.i];
          if (cell.kind === 'block') onZoom(cell.cidr);
          else onSelect(cell.ip);
        }}
      >
        {cells.map((cell, i) =>
          cell.kind === 'address' ? (
            <div
              key={cell.ip}
              data-i={i}
              data-ip={cell.ip}
              data-state={cell.state}
              data-node={cell.nodeBlock?.node}
              class={`cell ${cell.state}${cell.range && cell.state === 'allocated' ? (ipSetOf(cell.range) ? ' in-ipset' : ' in-range') : ''}${cell.ip === selected ? ' selected' : ''}`}
              style={cell.nodeBlock ? { borderTop: `4px solid ${nodeColour(cell.nodeBlock.node)}` } : undefined}
            >
              {columns === 16 ? shortLabel(cell, i) : ''}
            </div>
          ) : (
            <div
              key={cell.cidr}
              data-i={i}
              data-cidr={cell.cidr}
              data-nodes={[...new Set(cell.nodeBlocks.map((b) => b.node))].join(' ') || undefined}
              class="cell block"
              style={{
                background: blockBackground(cell),
                // the first node's colour marks a cell with nodes' blocks; the tooltip names them all
                borderTop: cell.nodeBlocks.length ? `4px solid ${nodeColour(cell.nodeBlocks[0].node)}` : undefined,
              }}
            >
              {shortLabel(cell, i)}
            </div>
          ),
        )}
      </div>
      {hovered && hover && (
        <div class="tooltip" role="tooltip" style={{ left: `${hover.x}px`, top: `${hover.y + 6}px` }}>
          <Tooltip cell={hovered} network={network} />
        </div>
      )}
    </div>
  );
}
