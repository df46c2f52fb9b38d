import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** clock ticks per second of /proc's utime and stime */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** A process's CPU seconds so far (user + system, from /proc/<pid>/stat), or undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name, in parentheses, may hold spaces: count the fields after it (state is field 3)
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[14 - 3]) + Number(fields[15 - 3])) / TICKS;
}

/** The PostgreSQL backends connected to `database` (their title: `postgres: [cluster: ]user database host(port) state`). */
export function postgresBackends(database: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let title: string;
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const words = title.replace(/^postgres: (?:\S+: )?/, '').split(/[\s\0]+/);
    if (title.startsWith('postgres: ') && words[1] === database) pids.push(Number(entry));
  }
  return pids;
}

/**
 * CPU seconds used by a changing set of processes between start() and stop(): PostgreSQL opens and
 * closes backends as pools grow and shrink, so the set is sampled every `everyMs`; a process first
 * seen after start() counts from zero, one gone before stop() counts up to its last sample.
 */
export class CpuMeter {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly processes: () => number[],
    private readonly everyMs = 500,
  ) {}

  start(): void {
    for (const pid of this.processes()) {
      const cpu = cpuSeconds(pid);
      if (cpu !== undefined) this.first.set(pid, cpu);
    }
    this.timer = setInterval(() => this.sample(), this.everyMs);
  }

  /** CPU seconds since start() */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    let used = 0;
    for (const [pid, cpu] of this.last) used += cpu - (this.first.get(pid) ?? 0);
    return used;
  }

  private sample(): void {
    for (const pid of this.processes()) {
      const cpu = cpuSeconds(pid);
      if (cpu !== undefined) this.last.set(pid, cpu);
    }
  }
}
