export function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <span class="labels">
      {entries.map(([key, value]) => (
        <code key={key} class="label">
          {key}={value}
        </code>
      ))}
    </span>
  );
}
