/**
 * Progress of a long run: a bar redrawn in place with events/s and an ETA on a terminal, a plain
 * line every few seconds otherwise (logs and CI keep them readable).
 */
export class Progress {
  private lastLine = 0;

  constructor(
    private readonly out: (line: string) => void,
    private readonly stream: NodeJS.WriteStream = process.stdout,
  ) {}

  update(done: number, total: number, startedAt: number): void {
    const seconds = (Date.now() - startedAt) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? Math.ceil((total - done) / rate) : 0;
    const text = `${done}/${total} events, ${Math.round(rate)} events/s, ETA ${eta} s`;
    if (this.stream.isTTY) {
      const width = 30;
      const filled = total > 0 ? Math.round((done / total) * width) : width;
      this.stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
    } else if (Date.now() - this.lastLine >= 2000 || done === total) {
      this.lastLine = Date.now();
      this.out(text);
    }
  }

  done(): void {
    if (this.stream.isTTY) this.stream.write('\n');
  }
}
