#!/usr/bin/env node
import { runPlugin } from './plugin';

/**
 * ipledger-ipam: a CNI IPAM plugin, run by the container runtime once per call. It exits as soon
 * as its answer is written: waiting for fetch's idle keep-alive socket to wind down would add a
 * few hundred milliseconds to every pod start.
 */
async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  // VERSION may come with an empty or closed stdin
  if (!process.stdin.isTTY) for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const { stdout, exitCode } = await runPlugin(process.env, Buffer.concat(chunks).toString('utf8'));
  process.stdout.write(stdout ? stdout + '\n' : '', () => process.exit(exitCode));
}

void main();
