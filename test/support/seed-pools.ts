import type { INestApplication } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CreatePoolsCommand, SetNodeLabelsCommand, type CommandMetadata } from '@ipledger/domain';
import { formatCidr } from '@ipledger/ip';
import { OwnTransaction } from '../../apps/api/src/infrastructure/unit-of-work';

export const GROUP_SIZE = 20;
const META: CommandMetadata = { actor: 'seed', source: 'rest', correlationId: 'seed' };
const OWN = new OwnTransaction({ retries: true });

export const poolName = (i: number) => `pool-${String(i).padStart(6, '0')}`;
export const groupOf = (i: number) => `group-${Math.floor(i / GROUP_SIZE)}`;

/**
 * `count` /26 pools carved from 10.0.0.0/8, one `pool-group` value per GROUP_SIZE pools, and one
 * node per group carrying that value: real events through the command bus, 1,000 pools a command.
 */
export async function seedPools(app: INestApplication, count: number, from = 0): Promise<void> {
  const bus = app.get(CommandBus);
  for (let start = from; start < from + count; start += 1000) {
    const inputs = [];
    for (let i = start; i < Math.min(start + 1000, from + count); i++) {
      inputs.push({
        name: poolName(i),
        cidr: formatCidr({ family: 4, network: 0x0a000000n + BigInt(i) * 64n, prefixLength: 26 }),
        labels: { 'pool-group': groupOf(i) },
      });
    }
    await bus.execute(new CreatePoolsCommand(inputs, META, OWN));
  }
  for (let g = Math.floor(from / GROUP_SIZE); g < Math.ceil((from + count) / GROUP_SIZE); g++) {
    await bus.execute(new SetNodeLabelsCommand(`node-${g}`, { 'pool-group': `group-${g}` }, META, OWN));
  }
}
