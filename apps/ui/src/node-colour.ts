/**
 * A node's colour on the map: a hue from its name, so a node keeps its colour across pools, reloads
 * and instants without the UI keeping a table of nodes.
 */
export function nodeColour(node: string): string {
  let hash = 0;
  for (let i = 0; i < node.length; i++) hash = (hash * 31 + node.charCodeAt(i)) >>> 0;
  // the golden angle: names that differ in their last character only (worker-1, worker-2) land far apart
  return `hsl(${Math.round((hash * 137.508) % 360)} 70% 42%)`;
}
