#!/usr/bin/env node
import { runPlugin } from './plugin';

/** ipledger-ipam: a CNI IPAM plugin, run by the container runtime once per call. */
async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  // VERSION may come with an empty or closed stdin
  if (!process.stdin.isTTY) for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const { stdout, exitCode } = await runPlugin(process.env, Buffer.concat(chunks).toString('utf8'));
  if (stdout) process.stdout.write(stdout + '\n');
  process.exitCode = exitCode;
}

void main();
